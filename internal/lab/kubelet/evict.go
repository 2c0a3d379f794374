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

// storageUseAt is the pod's use at now: what its running containers wrote
// to their writable layer, and to emptyDirs as last measured (at the pod's
// start and every volumeStatsAggPeriod after).
func (w *podWorker) storageUseAt(pod *corev1.Pod, now time.Time) storageUse {
	u := storageUse{rootfs: map[string]int64{}, emptyDir: map[string]int64{}}
	measured := w.rec.startTime.Add(now.Sub(w.rec.startTime).Truncate(volumeStatsAggPeriod))
	for i := range pod.Spec.Containers {
		c, cr := &pod.Spec.Containers[i], w.rec.containers[i]
		wr := cr.out.Write
		if cr.phase != containerRunning || wr == nil {
			continue
		}
		at := cr.startedAt.Add(wr.After)
		switch vol, kind := writtenVolume(pod, c, wr.Path); kind {
		case "":
			if !at.After(now) {
				u.rootfs[c.Name] += wr.Bytes
			}
		case "emptyDir":
			if !at.After(measured) {
				u.emptyDir[vol] += wr.Bytes
			}
		}
	}
	return u
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
// asks for a sync at the first tick after a write or measurement that will.
func (w *podWorker) checkEviction(ctx context.Context, pod *corev1.Pod) {
	now := w.a.clock.Now()
	if msg := evictionMessage(pod, w.storageUseAt(pod, w.a.evictionTick(now))); msg != "" {
		w.evict(ctx, pod, msg)
		return
	}
	for i := range pod.Spec.Containers {
		cr := w.rec.containers[i]
		wr := cr.out.Write
		if cr.phase != containerRunning || wr == nil {
			continue
		}
		seen := cr.startedAt.Add(wr.After)
		if _, kind := writtenVolume(pod, &pod.Spec.Containers[i], wr.Path); kind == "emptyDir" {
			// the volume's first measurement after the write
			seen = w.rec.startTime.Add((seen.Sub(w.rec.startTime) + volumeStatsAggPeriod - 1).Truncate(volumeStatsAggPeriod))
		}
		tick := w.a.evictionTick(seen)
		if tick.Before(seen) {
			tick = tick.Add(evictionMonitoringPeriod)
		}
		if tick.After(now) && evictionMessage(pod, w.storageUseAt(pod, tick)) != "" {
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
