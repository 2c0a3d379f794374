package kube

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"google.golang.org/protobuf/encoding/protowire"
)

// A watch of pods or events is most of what -A and serve decode: 20,000
// pods and tens of thousands of events. client-go's watch decoder copies
// each frame twice before it decodes the object (into a WatchEvent's raw
// object, then into the protobuf envelope's raw bytes); protoWatch reads
// the same frames and decodes each object from the frame itself.

// protobufWatch is the media type client-go asks a protobuf watch in.
const protobufWatch = "application/vnd.kubernetes.protobuf;stream=watch"

// protobufPrefix starts every protobuf-encoded object (the envelope's
// magic number, k8s.io/apimachinery's protobuf serializer).
var protobufPrefix = []byte{0x6b, 0x38, 0x73, 0x00}

// unmarshaler is a built-in type's pointer: the generated protobuf
// Unmarshal copies what it keeps, so the frame's buffer can be reused.
type unmarshaler[T any] interface {
	*T
	runtime.Object
	Unmarshal([]byte) error
}

// restOf is the REST client of a typed client, or nil for a fake one
// (whose RESTClient is a nil pointer): those watch through the typed
// client.
func restOf(c interface{ RESTClient() rest.Interface }) *rest.RESTClient {
	rc, _ := c.RESTClient().(*rest.RESTClient)
	return rc
}

// watchOf is protoWatch of resource through g's REST client, or, for a
// fake client, the typed client's watch.
func watchOf[T any, P unmarshaler[T]](g interface{ RESTClient() rest.Interface }, resource, ns string, typed watcher) watcher {
	if rc := restOf(g); rc != nil {
		return protoWatch[T, P](rc, resource, ns)
	}
	return typed
}

// protoWatch watches resource (of namespace ns, "" for all or a cluster
// scoped one) through rc as protobuf frames decoded into T.
func protoWatch[T any, P unmarshaler[T]](rc *rest.RESTClient, resource, ns string) watcher {
	return func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		o.Watch = true
		body, err := rc.Get().Namespace(ns).Resource(resource).VersionedParams(&o, scheme.ParameterCodec).
			SetHeader("Accept", protobufWatch).Stream(ctx)
		if err != nil {
			return nil, err
		}
		return watch.NewStreamWatcher(&frames[T, P]{body: body, r: bufio.NewReaderSize(body, 64<<10)}, apierrors.NewClientErrorReporter(http.StatusInternalServerError, "GET", "ClientWatchDecoding")), nil
	}
}

// frames decodes a protobuf watch stream: each frame a 4-byte big-endian
// length and a metav1.WatchEvent (type, 1; object, 2: a RawExtension whose
// raw bytes, 1, are the envelope: the prefix, then a runtime.Unknown whose
// raw bytes, 2, are the object).
type frames[T any, P unmarshaler[T]] struct {
	body io.ReadCloser
	r    *bufio.Reader
	buf  []byte
}

func (f *frames[T, P]) Close() { _ = f.body.Close() }

func (f *frames[T, P]) Decode() (watch.EventType, runtime.Object, error) {
	var n [4]byte
	_, err := io.ReadFull(f.r, n[:])
	size := binary.BigEndian.Uint32(n[:])
	switch {
	case n[0] == '{':
		return "", nil, errors.New("the API server answered a protobuf watch with JSON")
	case err != nil:
		return "", nil, err
	case size > 256<<20:
		return "", nil, fmt.Errorf("the API server answered a protobuf watch with a frame of %d bytes", size)
	}
	if cap(f.buf) < int(size) {
		f.buf = make([]byte, size)
	}
	frame := f.buf[:size]
	if _, err := io.ReadFull(f.r, frame); err != nil {
		return "", nil, err
	}
	typ, envelope, err := watchEvent(frame)
	if err != nil {
		return "", nil, err
	}
	raw, err := unknownRaw(envelope)
	if err != nil {
		return "", nil, err
	}
	if typ == watch.Error {
		st := &metav1.Status{}
		if err := st.Unmarshal(raw); err != nil {
			return "", nil, fmt.Errorf("decoding a watch error: %w", err)
		}
		return typ, st, nil
	}
	obj := P(new(T))
	if err := obj.Unmarshal(raw); err != nil {
		return "", nil, fmt.Errorf("decoding a watch event: %w", err)
	}
	return typ, obj, nil
}

// watchEvent reads a WatchEvent's type and its object's raw bytes.
func watchEvent(b []byte) (watch.EventType, []byte, error) {
	var typ string
	var obj []byte
	err := protoFields(b, func(num protowire.Number, v []byte) error {
		switch num {
		case 1:
			typ = string(v)
		case 2:
			return protoFields(v, func(num protowire.Number, v []byte) error {
				if num == 1 {
					obj = v
				}
				return nil
			})
		}
		return nil
	})
	switch t := watch.EventType(typ); {
	case err != nil:
		return "", nil, fmt.Errorf("decoding a watch event: %w", err)
	case t != watch.Added && t != watch.Modified && t != watch.Deleted && t != watch.Bookmark && t != watch.Error:
		return "", nil, fmt.Errorf("got invalid watch event type: %q", typ)
	default:
		return t, obj, nil
	}
}

// unknownRaw is the object's bytes in a protobuf envelope.
func unknownRaw(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, protobufPrefix) {
		return nil, errors.New("decoding a watch event: the object is not protobuf")
	}
	var raw []byte
	err := protoFields(b[len(protobufPrefix):], func(num protowire.Number, v []byte) error {
		if num == 2 {
			raw = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding a watch event's envelope: %w", err)
	}
	return raw, nil
}

// protoFields calls f with each length-delimited field of a message, and skips
// the others.
func protoFields(b []byte, f func(protowire.Number, []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		if err := f(num, v); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
