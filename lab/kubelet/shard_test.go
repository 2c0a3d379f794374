package kubelet

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
)

// TestShardedSink: every event about one object goes through one
// recorder, in order (the correlator's aggregation and spam filter are
// per object), and many objects' events spread over all of them.
func TestShardedSink(t *testing.T) {
	s := &shardedSink{}
	fakes := make([]*record.FakeRecorder, eventShards)
	for i := range fakes {
		fakes[i] = record.NewFakeRecorder(1000)
		s.shards = append(s.shards, fakes[i])
	}
	for i := range 40 {
		ref := &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: fmt.Sprintf("web-%d", i)}
		for n := range 3 {
			warn(s, ref, reasonUnhealthy, fmt.Sprintf("%s %d", ref.Name, n))
		}
	}
	for i, f := range fakes {
		if len(f.Events) == 0 {
			t.Errorf("recorder %d got no event of 40 pods'", i)
		}
		last := map[string]int{}
		for len(f.Events) > 0 {
			var name string
			var n int
			if _, err := fmt.Sscanf(<-f.Events, "Warning Unhealthy %s %d", &name, &n); err != nil {
				t.Fatal(err)
			}
			if prev, seen := last[name]; seen && n != prev+1 || !seen && n != 0 {
				t.Errorf("recorder %d: %s's event %d after %d: one object's events must stay in one recorder, in order", i, name, n, prev)
			}
			last[name] = n
		}
		for name, n := range last {
			if n != 2 {
				t.Errorf("recorder %d has %d of %s's 3 events", i, n+1, name)
			}
		}
	}
}
