package kube

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
)

// eventServer answers GET /api/v1/namespaces/{ns}/events like the API server
// does for JSON clients: limit/continue paging and a fieldSelector over the
// fields the real one selects on. Bodies are encoded once per query and then
// replayed, so a benchmark measures the client, not this server.
type eventServer struct {
	ns     string
	events []corev1.Event // sorted by name, as etcd returns them

	mu    sync.Mutex
	cache map[string]cached

	bytes, requests atomic.Int64
}

type cached struct {
	status int
	body   []byte
}

func (s *eventServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/namespaces/"+s.ns+"/events" {
		http.NotFound(w, r)
		return
	}
	key := r.URL.Query().Encode()
	s.mu.Lock()
	c, ok := s.cache[key]
	if !ok {
		c = s.respond(r.URL.Query())
		s.cache[key] = c
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(c.status)
	n, _ := w.Write(c.body)
	s.bytes.Add(int64(n))
	s.requests.Add(1)
}

func (s *eventServer) respond(q url.Values) cached {
	sel, err := fields.ParseSelector(q.Get("fieldSelector"))
	if err != nil {
		return statusBody(apierrors.NewBadRequest(err.Error()))
	}
	for _, req := range sel.Requirements() {
		if _, ok := selectableFields(&corev1.Event{})[req.Field]; !ok {
			// k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/conversion.go:
			// "field label not supported: %s"
			return statusBody(apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", req.Field)))
		}
	}
	var match []corev1.Event
	for i := range s.events {
		if sel.Matches(selectableFields(&s.events[i])) {
			match = append(match, s.events[i])
		}
	}
	start := 0
	if tok := q.Get("continue"); tok != "" {
		key, err := continueFrom(tok)
		if err != nil {
			return statusBody(apierrors.NewBadRequest(err.Error()))
		}
		start, _ = slices.BinarySearchFunc(match, key, func(e corev1.Event, k string) int { return strings.Compare(e.Name, k) })
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	end := len(match)
	if limit > 0 {
		end = min(start+limit, len(match))
	}
	list := corev1.EventList{
		TypeMeta: metav1.TypeMeta{Kind: "EventList", APIVersion: "v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: "4821377"},
		Items:    match[start:end],
	}
	if end < len(match) {
		left := int64(len(match) - end)
		list.Continue, list.RemainingItemCount = startAt(match[end-1].Name+"\x00", 4821377), &left
	}
	body, _ := json.Marshal(&list)
	return cached{status: http.StatusOK, body: body}
}

// continueFrom is the key a continue token starts the list at, as the API
// server reads its tokens (k8s.io/apiserver@v0.37.2 pkg/storage
// continue.go DecodeContinue: base64 of {"v":"meta.k8s.io/v1","rv":N,
// "start":KEY}, KEY relative to the list's prefix).
func continueFrom(tok string) (string, error) {
	data, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", fmt.Errorf("continue key is not valid: %v", err)
	}
	var c struct {
		V     string `json:"v"`
		RV    int64  `json:"rv"`
		Start string `json:"start"`
	}
	if err := json.Unmarshal(data, &c); err != nil || c.V != "meta.k8s.io/v1" || c.RV == 0 || c.Start == "" {
		return "", fmt.Errorf("continue key is not valid")
	}
	return strings.TrimPrefix(c.Start, "/"), nil
}

func statusBody(err *apierrors.StatusError) cached {
	st := err.ErrStatus
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	body, _ := json.Marshal(&st)
	return cached{status: int(st.Code), body: body}
}

// selectableFields mirrors ToSelectableFields in k8s.io/kubernetes@v1.37.2
// pkg/registry/core/event/strategy.go.
func selectableFields(e *corev1.Event) fields.Set {
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	return fields.Set{
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         source,
		"type":                           e.Type,
		"metadata.name":                  e.Name,
		"metadata.namespace":             e.Namespace,
	}
}

// kubeletFields is the managedFields entry the kubelet's recorder leaves on
// an event; it is part of what a real list transfers.
var kubeletFields = []metav1.ManagedFieldsEntry{{
	Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
	FieldsType: "FieldsV1",
	FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:count":{},"f:firstTimestamp":{},"f:involvedObject":{},` +
		`"f:lastTimestamp":{},"f:message":{},"f:reason":{},"f:reportingComponent":{},` +
		`"f:reportingInstance":{},"f:source":{"f:component":{},"f:host":{}},"f:type":{}}`)},
}}

// busyNamespace builds n events in ns: webPods pods of Deployment web get
// Scheduled, Pulling and BackOff events, its ReplicaSet one SuccessfulCreate
// per pod and the Deployment one ScalingReplicaSet; the rest are about pods
// of other Deployments, one in five a Warning. Messages use the formats
// listed in fixture_test.go.
func busyNamespace(ns string, n, webPods int) []corev1.Event {
	var out []corev1.Event
	add := func(kind, obj, typ, reason, source, msg string) {
		i := len(out)
		ts := metav1.NewTime(t0.Add(-time.Duration(n-i) * time.Second))
		out = append(out, corev1.Event{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: ns, Name: fmt.Sprintf("%s.%016x", obj, i), UID: types.UID(fmt.Sprintf("8f1c2d3e-0000-4000-8000-%012d", i)),
				ResourceVersion: strconv.Itoa(4800000 + i), CreationTimestamp: ts, ManagedFields: kubeletFields,
			},
			InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: ns, Name: obj, APIVersion: "v1",
				UID: types.UID("uid-" + obj), ResourceVersion: strconv.Itoa(4700000 + i), FieldPath: "spec.containers{app}"},
			Type: typ, Reason: reason, Message: msg, Count: 1, FirstTimestamp: ts, LastTimestamp: ts,
			Source:              corev1.EventSource{Component: source, Host: "node-7"},
			ReportingController: source, ReportingInstance: "node-7",
		})
	}
	add("Deployment", "web", "Normal", "ScalingReplicaSet", "deployment-controller", scaledUp("web-7c9d8f6b5", webPods))
	for p := range webPods {
		name := fmt.Sprintf("web-7c9d8f6b5-%05d", p)
		add("ReplicaSet", "web-7c9d8f6b5", "Normal", "SuccessfulCreate", "replicaset-controller", createdPod(name))
		add("Pod", name, "Normal", "Scheduled", "default-scheduler", assigned(ns, name, "node-7"))
		add("Pod", name, "Normal", "Pulling", "kubelet", pulling("registry.lab.internal/web:v9"))
		add("Pod", name, "Warning", "BackOff", "kubelet", backOff("app", ns, name, types.UID("uid-"+name)))
	}
	for len(out) < n {
		i := len(out)
		name := fmt.Sprintf("svc%03d-5d4c3b2a1-%05d", i%300, i)
		if i%5 == 0 {
			add("Pod", name, "Warning", "BackOff", "kubelet", backOff("app", ns, name, types.UID("uid-"+name)))
		} else {
			add("Pod", name, "Normal", "Pulling", "kubelet", pulling(fmt.Sprintf("registry.lab.internal/svc%03d:v1", i%300)))
		}
	}
	slices.SortFunc(out, func(a, b corev1.Event) int { return strings.Compare(a.Name, b.Name) })
	return out
}
