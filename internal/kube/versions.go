package kube

import "sync"

// versions keeps, per resource, the resource version of the earliest read
// since the watches last took them, so a watch opened after a read starts
// where the read stopped: it neither replays what was read (a watch with no
// resource version first sends every existing object, a namespace's events
// included) nor misses a change made between the read and the watch.
type versions struct {
	mu sync.Mutex
	rv map[string]string
}

// note records rv for resource unless an earlier read already did.
func (v *versions) note(resource, rv string) {
	if rv == "" {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rv == nil {
		v.rv = map[string]string{}
	}
	if _, ok := v.rv[resource]; !ok {
		v.rv[resource] = rv
	}
}

// take returns the recorded versions and forgets them.
func (v *versions) take() map[string]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.rv
	v.rv = nil
	return out
}
