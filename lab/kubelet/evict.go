package kubelet

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The kubelet's eviction manager for what a lab pod can drive itself: local
// ephemeral storage over its limits (pkg/kubelet/eviction/eviction_manager.go
// localStorageEviction). Every evictionMonitoringPeriod it checks, in this
// order, each emptyDir against its sizeLimit, the pod's use against the sum
// of its containers' ephemeral-storage limits, and each container's against
// its own, and evicts the pod on the first one exceeded: an Evicted event,
// its containers stopped with a grace period of a second, the pod terminal
// (Failed with reason Evicted, unless every container exited 0: then
// Succeeded, the event the only trace, as upstream issue
// kubernetes/kubernetes#120182 shows and the lab's real node does).
const (
	// pkg/kubelet/kubelet.go
	evictionMonitoringPeriod = 10 * time.Second
	// KubeletConfiguration volumeStatsAggPeriod's default: an emptyDir's
	// use is measured (du) when the pod starts, then once a period.
	volumeStatsAggPeriod = time.Minute
	// eviction_manager.go immediateEvictionGracePeriodSeconds
	evictionGracePeriod = time.Second
	// pkg/kubelet/eviction/helpers.go
	reasonEvicted              = "Evicted"
	msgEmptyDirLimit           = "Usage of EmptyDir volume %q exceeds the limit %q. "
	msgPodEphemeralLimit       = "Pod ephemeral local storage usage exceeds the total limit of containers %s. "
	msgContainerEphemeralLimit = "Container %s exceeded its local ephemeral storage limit %q. "
)

// Write is what a container writes once started: Bytes to the file Path,
// After its start.
type Write struct {
	Bytes int64
	Path  string
	After time.Duration
}

// storageUse is a pod's local storage use as the eviction manager sees it
// at a time: each container's writable layer, each emptyDir's contents.
type storageUse struct {
	rootfs   map[string]int64
	emptyDir map[string]int64
}

// write is one running container's write as the eviction manager sees it:
// where it landed (its writable layer, or an emptyDir) and from when: at
// once in the writable layer, at the volume's next measurement (the pod's
// start, then every volumeStatsAggPeriod) in an emptyDir.
type write struct {
	container, emptyDir string
	bytes               int64
	seen                time.Time
}

// writes are the pod's running containers' writes; one to a volume other
// than a disk-backed emptyDir counts for nothing.
func (w *podWorker) writes(pod *corev1.Pod) []write {
	var out []write
	for i := range pod.Spec.Containers {
		c, cr := &pod.Spec.Containers[i], w.rec.containers[i]
		wr := cr.out.Write
		if cr.phase != containerRunning || wr == nil {
			continue
		}
		at := cr.startedAt.Add(wr.After)
		vol, kind := writtenVolume(pod, c, wr.Path)
		switch kind {
		case "other":
			continue
		case "emptyDir":
			start := w.rec.startTime
			at = start.Add((at.Sub(start) + volumeStatsAggPeriod - 1).Truncate(volumeStatsAggPeriod))
		}
		out = append(out, write{container: c.Name, emptyDir: vol, bytes: wr.Bytes, seen: at})
	}
	return out
}

// useAt is the use the writes make at t.
func useAt(ws []write, t time.Time) storageUse {
	u := storageUse{rootfs: map[string]int64{}, emptyDir: map[string]int64{}}
	for _, wr := range ws {
		switch {
		case wr.seen.After(t):
		case wr.emptyDir != "":
			u.emptyDir[wr.emptyDir] += wr.bytes
		default:
			u.rootfs[wr.container] += wr.bytes
		}
	}
	return u
}

// storageUseAt is the pod's use as the eviction manager sees it at now.
func (w *podWorker) storageUseAt(pod *corev1.Pod, now time.Time) storageUse {
	return useAt(w.writes(pod), now)
}

// writtenVolume names the volume a write to file lands in and its kind:
// "emptyDir" for a disk-backed emptyDir, "" for the container's writable
// layer, "other" for any other volume.
func writtenVolume(pod *corev1.Pod, c *corev1.Container, file string) (string, string) {
	best, name := "", ""
	for _, m := range c.VolumeMounts {
		mp := path.Clean(m.MountPath)
		if (file == mp || strings.HasPrefix(file, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > len(best) {
			best, name = mp, m.Name
		}
	}
	if name == "" {
		return "", ""
	}
	for _, v := range pod.Spec.Volumes {
		if v.Name == name && v.EmptyDir != nil && v.EmptyDir.Medium != corev1.StorageMediumMemory {
			return name, "emptyDir"
		}
	}
	return name, "other"
}

// evictionMessage is why the eviction manager evicts a pod of use u, ""
// when it does not: localStorageEviction's three checks in order.
func evictionMessage(pod *corev1.Pod, u storageUse) string {
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.Sign() != 1 {
			continue
		}
		if used := resource.NewQuantity(u.emptyDir[v.Name], resource.BinarySI); used.Cmp(*v.EmptyDir.SizeLimit) > 0 {
			return fmt.Sprintf(msgEmptyDirLimit, v.Name, v.EmptyDir.SizeLimit.String())
		}
	}
	var podLimit *resource.Quantity
	for _, c := range pod.Spec.Containers {
		if l, ok := c.Resources.Limits[corev1.ResourceEphemeralStorage]; ok {
			if podLimit == nil {
				podLimit = resource.NewQuantity(0, resource.BinarySI)
			}
			podLimit.Add(l)
		}
	}
	if podLimit != nil {
		var total int64
		for _, n := range u.rootfs {
			total += n
		}
		for _, n := range u.emptyDir {
			total += n
		}
		if resource.NewQuantity(total, resource.BinarySI).Cmp(*podLimit) > 0 {
			return fmt.Sprintf(msgPodEphemeralLimit, podLimit.String())
		}
	}
	for _, c := range pod.Spec.Containers {
		l, ok := c.Resources.Limits[corev1.ResourceEphemeralStorage]
		if ok && l.Value() != 0 && l.Cmp(*resource.NewQuantity(u.rootfs[c.Name], resource.BinarySI)) < 0 {
			return fmt.Sprintf(msgContainerEphemeralLimit, c.Name, l.String())
		}
	}
	return ""
}

// checkEviction runs the eviction manager's check as its last tick saw
// the pod: it evicts the pod when that tick found it over a limit, else
// asks for a sync at the first tick after a write it will see that puts
// the pod over one.
func (w *podWorker) checkEviction(ctx context.Context, pod *corev1.Pod) {
	now := w.a.clock.Now()
	ws := w.writes(pod)
	if msg := evictionMessage(pod, useAt(ws, w.a.evictionTick(now))); msg != "" {
		w.evict(ctx, pod, msg)
		return
	}
	for _, wr := range ws {
		tick := w.a.evictionTick(wr.seen)
		if tick.Before(wr.seen) {
			tick = tick.Add(evictionMonitoringPeriod)
		}
		if tick.After(now) && evictionMessage(pod, useAt(ws, tick)) != "" {
			w.after(tick)
		}
	}
}

// evictionTick is the eviction manager's last check at or before t: it
// runs every evictionMonitoringPeriod from the node's start.
func (a *nodeAgent) evictionTick(t time.Time) time.Time {
	return a.startedAt.Add(t.Sub(a.startedAt).Truncate(evictionMonitoringPeriod))
}

// evict is evictPod: the Evicted event, then every container stopped with
// the eviction's grace period, and the pod terminal.
func (w *podWorker) evict(ctx context.Context, pod *corev1.Pod, msg string) {
	warn(w.a.events, podRef(pod), reasonEvicted, msg)
	if w.kill(ctx, pod, evictionGracePeriod) {
		w.rec.evicted = msg
		w.writeStatus()
	}
}
