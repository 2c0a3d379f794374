package kubelet

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestEvictionMessage checks localStorageEviction's three checks and their
// order, with the kubelet's messages (pkg/kubelet/eviction/helpers.go).
func TestEvictionMessage(t *testing.T) {
	const mi = 1 << 20
	limits := func(q string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse(q)}}
	}
	emptyDir := func(medium corev1.StorageMedium) corev1.Volume {
		return corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: medium, SizeLimit: ptrQuantity("16Mi")}}}
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		use  storageUse
		want string
	}{
		{"emptyDir over its sizeLimit",
			corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Resources: limits("1Gi")}}, Volumes: []corev1.Volume{emptyDir("")}},
			storageUse{emptyDir: map[string]int64{"scratch": 32 * mi}},
			`Usage of EmptyDir volume "scratch" exceeds the limit "16Mi". `},
		{"emptyDir within its sizeLimit",
			corev1.PodSpec{Containers: []corev1.Container{{Name: "web"}}, Volumes: []corev1.Volume{emptyDir("")}},
			storageUse{emptyDir: map[string]int64{"scratch": 16 * mi}}, ""},
		{"the pod over the sum of its containers' limits",
			corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Resources: limits("16Mi")}, {Name: "log", Resources: limits("16Mi")}}},
			storageUse{rootfs: map[string]int64{"web": 24 * mi, "log": 9 * mi}},
			"Pod ephemeral local storage usage exceeds the total limit of containers 32Mi. "},
		{"a container over its own limit, the pod within the sum",
			corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Resources: limits("16Mi")}, {Name: "cache", Resources: limits("64Mi")}}},
			storageUse{rootfs: map[string]int64{"web": 20 * mi}},
			`Container web exceeded its local ephemeral storage limit "16Mi". `},
		{"a container without a limit",
			corev1.PodSpec{Containers: []corev1.Container{{Name: "web"}}},
			storageUse{rootfs: map[string]int64{"web": 1 << 40}}, ""},
	}
	for _, tt := range tests {
		if got := evictionMessage(&corev1.Pod{Spec: tt.spec}, tt.use); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func ptrQuantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

// TestStorageUse checks where a write lands and when the eviction manager
// sees it: the writable layer at once, an emptyDir at the next measurement
// (the pod's start, then every volumeStatsAggPeriod).
func TestStorageUse(t *testing.T) {
	pod := scheduledPod()
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "shm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
	}
	c := &pod.Spec.Containers[0]
	c.VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/data"}, {Name: "shm", MountPath: "/data/shm/"}}
	for file, want := range map[string][2]string{
		"/data/fill": {"scratch", "emptyDir"}, "/data": {"scratch", "emptyDir"}, "/data/shm/x": {"shm", "other"},
		"/tmp/fill": {"", ""}, "/database": {"", ""},
	} {
		if v, kind := writtenVolume(pod, c, file); v != want[0] || kind != want[1] {
			t.Errorf("writtenVolume(%s) = %q %q, want %q", file, v, kind, want)
		}
	}

	start := t1
	w := &podWorker{rec: newPodRecord(pod, start)}
	cr := w.rec.containers[0]
	cr.phase, cr.startedAt = containerRunning, start.Add(time.Second)
	cr.out.Write = &Write{Bytes: 32 << 20, Path: "/data/fill", After: 2 * time.Second}
	if u := w.storageUseAt(pod, start.Add(59*time.Second)); u.emptyDir["scratch"] != 0 {
		t.Errorf("an emptyDir write is seen before the volume's next measurement: %+v", u)
	}
	if u := w.storageUseAt(pod, start.Add(time.Minute)); u.emptyDir["scratch"] != 32<<20 {
		t.Errorf("the volume's measurement a minute after the pod's start misses the write: %+v", u)
	}
	cr.out.Write.Path = "/tmp/fill"
	if u := w.storageUseAt(pod, start.Add(2*time.Second)); u.rootfs["web"] != 0 {
		t.Errorf("a write is seen before it happens: %+v", u)
	}
	if u := w.storageUseAt(pod, start.Add(3*time.Second)); u.rootfs["web"] != 32<<20 {
		t.Errorf("the writable layer misses the write: %+v", u)
	}
}

// TestWorkerEviction checks an eviction end to end on the worker: the
// Evicted event and the kill, then the terminal pod, Succeeded with no
// reason when the program exits 0 on SIGTERM, Failed with reason Evicted
// when the kill's SIGKILL ends it.
func TestWorkerEviction(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		phase corev1.PodPhase
		code  int32
	}{
		{[]string{"--write-mb", "32"}, corev1.PodSucceeded, 0},
		{[]string{"--write-mb", "32", "--ignore-sigterm"}, corev1.PodFailed, 137},
	} {
		pod := scheduledPod()
		c := &pod.Spec.Containers[0]
		c.Args = tt.args
		c.Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("16Mi")}
		client, sink, clk, ctx := startLabWorker(t, pod)
		if tt.code != 0 {
			step(t, ctx, clk, minimumGracePeriod)
		}
		p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == tt.phase })
		const msg = "Pod ephemeral local storage usage exceeds the total limit of containers 16Mi. "
		wantReason, wantMsg := "", ""
		if tt.phase == corev1.PodFailed {
			wantReason, wantMsg = reasonEvicted, msg
		}
		if p.Status.Reason != wantReason || p.Status.Message != wantMsg {
			t.Errorf("%v: status reason %q message %q, want %q %q", tt.args, p.Status.Reason, p.Status.Message, wantReason, wantMsg)
		}
		if st := p.Status.ContainerStatuses[0].State.Terminated; st == nil || st.ExitCode != tt.code {
			t.Errorf("%v: container state %+v, want terminated %d", tt.args, p.Status.ContainerStatuses[0].State, tt.code)
		}
		var evicted, killing int
		for _, e := range sink.list() {
			switch {
			case e.Reason == "Evicted" && e.Type == "Warning" && e.Message == msg && e.FieldPath == "":
				evicted++
			case e.Reason == "Killing":
				killing++
			}
		}
		if evicted != 1 || killing != 1 {
			t.Errorf("%v: %d Evicted and %d Killing events, want one each: %+v", tt.args, evicted, killing, sink.list())
		}
	}
}

// TestWorkerRestartPolicyNever: a Job's pod whose container exits is not
// restarted; it ends Succeeded on exit 0 and Failed otherwise, with the
// terminal conditions and no BackOff event, as the kubelet's getPhase and
// pod worker do for restartPolicy Never and OnFailure.
func TestWorkerRestartPolicyNever(t *testing.T) {
	for _, tt := range []struct {
		policy corev1.RestartPolicy
		exit   string
		phase  corev1.PodPhase
	}{
		{corev1.RestartPolicyNever, "0", corev1.PodSucceeded},
		{corev1.RestartPolicyNever, "3", corev1.PodFailed},
		{corev1.RestartPolicyOnFailure, "0", corev1.PodSucceeded},
	} {
		pod := scheduledPod()
		pod.Spec.RestartPolicy = tt.policy
		pod.Spec.Containers[0].Args = []string{"--exit", tt.exit, "--after", "1s"}
		client, sink, clk, ctx := startLabWorker(t, pod)
		step(t, ctx, clk, 2*time.Second)
		p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == tt.phase })
		st := p.Status.ContainerStatuses[0]
		if st.State.Terminated == nil || fmt.Sprint(st.State.Terminated.ExitCode) != tt.exit || st.RestartCount != 0 {
			t.Errorf("%s exit %s: container %+v, want terminated with %s and no restart", tt.policy, tt.exit, st, tt.exit)
		}
		if c := podCond(p, corev1.PodReady); c == nil || c.Status != corev1.ConditionFalse {
			t.Errorf("%s exit %s: Ready %+v, want False", tt.policy, tt.exit, c)
		}
		for _, e := range sink.list() {
			if e.Reason == "BackOff" {
				t.Errorf("%s exit %s: a BackOff event %q for a container that must not restart", tt.policy, tt.exit, e.Message)
			}
		}
	}
}

func podCond(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
