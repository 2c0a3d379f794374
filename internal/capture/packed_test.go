package capture

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	corev1 "k8s.io/api/core/v1"
)

// packed is b with its pods packed, as a mirror's bundle holds them.
func packed(t *testing.T, b *Bundle) *Bundle {
	t.Helper()
	var shared Labels
	p := *b
	p.Packed, p.Pods, p.ix = make([]PackedPod, 0, len(b.Pods)), nil, nil
	for i := range b.Pods {
		pp, err := Pack(&b.Pods[i], &shared)
		if err != nil {
			t.Fatal(err)
		}
		p.Packed = append(p.Packed, pp)
	}
	return &p
}

// TestPackedPods: every workload of every capture in testdata/captures
// walks to the same report, and is cut with the same pods, whether the
// bundle holds its pods decoded or packed.
func TestPackedPods(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/captures/*.yaml")
	if len(files) < 50 {
		t.Fatalf("%d captures found, want the testdata's", len(files))
	}
	pods, walked := 0, 0
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Load(in)
		in.Close()
		if err != nil || len(b.Pods) == 0 {
			continue
		}
		pb := packed(t, b)
		pods += len(b.Pods)
		for _, w := range append(b.Workloads(""), b.Traffic("")...) {
			want, err := b.Read(w.Namespace, w.Ref)
			if err != nil {
				continue
			}
			got, err := pb.Read(w.Namespace, w.Ref)
			if err != nil {
				t.Errorf("%s %s: packed: %v", filepath.Base(f), w.Ref, err)
				continue
			}
			walked++
			// The kind and version are not in a pod's protobuf encoding
			// (the API sends them beside it): a mirror's pods never had them.
			noKind := cmpopts.IgnoreFields(corev1.Pod{}, "TypeMeta")
			if diff := cmp.Diff(want.Pods, got.Pods, cmpopts.EquateEmpty(), noKind); diff != "" {
				t.Errorf("%s %s: pods differ (-decoded +packed):\n%s", filepath.Base(f), w.Ref, diff)
			}
			rw, rg := diagnose.Walk(want, diagnose.Options{}), diagnose.Walk(got, diagnose.Options{})
			if diff := cmp.Diff(rw, rg, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s %s: reports differ (-decoded +packed):\n%s", filepath.Base(f), w.Ref, diff)
			}
		}
		for _, p := range b.Pods {
			if got, ok := pb.Pod(p.Namespace, p.Name); !ok || got.UID != p.UID {
				t.Errorf("%s: pod %s not found packed", filepath.Base(f), p.Name)
			}
		}
	}
	if walked < 50 {
		t.Fatalf("%d workloads walked over %d pods, want the captures' (50 or more)", walked, pods)
	}
	t.Logf("%d workloads of %d captures walked from %d pods, decoded and packed", walked, len(files), pods)
}

// TestPackShares: pods of the same labels share one map; a packed pod is
// a fraction of the decoded pod's memory.
func TestPackShares(t *testing.T) {
	var shared Labels
	mk := func(name string) *corev1.Pod {
		p := &corev1.Pod{}
		p.Name, p.Namespace = name, "shop"
		p.Labels = map[string]string{"app": "web", "pod-template-hash": "6d4b9"}
		p.Spec.Containers = []corev1.Container{{Name: "web", Image: "web:v2"}}
		return p
	}
	a, _ := Pack(mk("web-1"), &shared)
	b, _ := Pack(mk("web-2"), &shared)
	if reflect.ValueOf(a.Labels).Pointer() != reflect.ValueOf(b.Labels).Pointer() || len(shared.sets) != 1 {
		t.Errorf("%d label sets kept for two pods of the same labels, want 1, shared", len(shared.sets))
	}
	if got := b.Pod(); got.Name != "web-2" || got.Spec.Containers[0].Image != "web:v2" || got.Labels["app"] != "web" {
		t.Errorf("decoded %s %v %v, want web-2 of web:v2 labelled app=web", got.Name, got.Spec.Containers, got.Labels)
	}
	if a.Size() == 0 || a.Size() > 200 {
		t.Errorf("packed size %d bytes, want a small encoding", a.Size())
	}
}
