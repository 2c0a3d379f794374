package kube

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// refused is the error client-go returns while nothing listens on the API
// server's port.
var refused = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

func TestUnreachable(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{refused, true},
		{errors.New("EOF"), true},
		{apierrors.NewServiceUnavailable("the server is currently unable to handle the request"), true},
		{apierrors.NewTooManyRequests("too many requests", 1), true},
		{apierrors.NewInternalError(errors.New("etcd is down")), true},
		{apierrors.NewForbidden(gr, "", errors.New("no")), false},
		{apierrors.NewNotFound(gr, "web"), false},
		{apierrors.NewResourceExpired("too old resource version"), false},
		{nil, false},
	} {
		if got := unreachable(tt.err); got != tt.want {
			t.Errorf("unreachable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestRetryAfterBacksOff(t *testing.T) {
	var got []time.Duration
	var d time.Duration
	for range 5 {
		d = retryAfter(true, d)
		got = append(got, d)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pauses while unreachable = %v, want %v", got, want)
		}
	}
	if d := retryAfter(false, 4*time.Second); d != watchRetry {
		t.Errorf("pause once it answers = %v, want %v", d, watchRetry)
	}
}

// TestFollowThroughAnOutage: a watch whose server goes away records the
// outage on the Conn, is opened again, and resumes from the last resource
// version it saw, not from the start (which would replay every object).
func TestFollowThroughAnOutage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var (
		mu     sync.Mutex
		opened []string // the resource versions asked for
		conn   Conn
		first  = watch.NewFake()
		second = watch.NewFake()
	)
	lostSeen := make(chan time.Time, 1)
	s := stream{resource: "pods", conn: &conn, options: metav1.ListOptions{ResourceVersion: "100"},
		openCtx: func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			opened = append(opened, o.ResourceVersion)
			switch len(opened) {
			case 1:
				return first, nil
			case 2, 3:
				if since, _ := conn.Lost(); !since.IsZero() {
					select {
					case lostSeen <- since:
					default:
					}
				}
				return nil, refused
			case 4:
				return second, nil
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	changed := make(chan struct{}, 1)
	go s.follow(ctx, changed, func() { t.Error("reported forbidden") })

	first.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", ResourceVersion: "142"}})
	<-changed
	first.Stop() // the API server goes away
	select {
	case <-lostSeen:
	case <-ctx.Done():
		t.Fatal("the outage was never recorded")
	}
	second.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", ResourceVersion: "150"}})
	<-changed
	if since, why := conn.Lost(); !since.IsZero() {
		t.Errorf("still lost since %v (%s) after a watch opened", since, why)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"100", "142", "142", "142"}
	for i := range want {
		if i >= len(opened) || opened[i] != want[i] {
			t.Fatalf("watches opened at resource versions %q, want %q", opened, want)
		}
	}
}
