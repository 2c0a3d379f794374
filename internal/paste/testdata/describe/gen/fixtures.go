package main

// The fixtures, by family: each writes its objects' describe texts into
// out, by file name.

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubectl/pkg/describe"
)

// quota: a Deployment whose rolling update a namespace quota blocks.
// The FailedCreate message is the one of
// https://github.com/ministryofjustice/cloud-platform/issues/590
// (testdata/real/incidents/admission.yaml); the quota's used and hard
// are the ones it names.
func quota(out map[string]string) {
	labels := map[string]string{"app": "allocation-manager"}
	d := &appsv1.Deployment{ObjectMeta: meta("Deployment", "allocation-manager", labels),
		Spec: appsv1.DeploymentSpec{Replicas: i32(3), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: template(labels, "registry.example.com/allocation-manager:2.4.1", limits("1", "2Gi")),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: &intstr.IntOrString{Type: intstr.String, StrVal: "25%"}, MaxSurge: &intstr.IntOrString{Type: intstr.String, StrVal: "25%"}}}},
		Status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 0, AvailableReplicas: 3, Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated"},
			{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate"}}}}
	d.Annotations = map[string]string{"deployment.kubernetes.io/revision": "2"}
	rsLabels := map[string]string{"app": "allocation-manager", "pod-template-hash": "6597bc46dc"}
	rs := &appsv1.ReplicaSet{ObjectMeta: meta("ReplicaSet", "allocation-manager-6597bc46dc", rsLabels),
		Spec: appsv1.ReplicaSetSpec{Replicas: i32(1), Selector: &metav1.LabelSelector{MatchLabels: rsLabels},
			Template: template(rsLabels, "registry.example.com/allocation-manager:2.4.1", limits("1", "2Gi"))},
		Status: appsv1.ReplicaSetStatus{Replicas: 0, Conditions: []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate"}}}}
	rs.OwnerReferences = ctrl("Deployment", "allocation-manager")
	rs.Annotations = map[string]string{"deployment.kubernetes.io/revision": "2"}
	oldLabels := map[string]string{"app": "allocation-manager", "pod-template-hash": "5c8f7d9b4"}
	old := &appsv1.ReplicaSet{ObjectMeta: meta("ReplicaSet", "allocation-manager-5c8f7d9b4", oldLabels),
		Spec: appsv1.ReplicaSetSpec{Replicas: i32(3), Selector: &metav1.LabelSelector{MatchLabels: oldLabels},
			Template: template(oldLabels, "registry.example.com/allocation-manager:2.4.0", limits("1", "2Gi"))},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}}
	old.OwnerReferences = ctrl("Deployment", "allocation-manager")
	old.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
	failed := event("ReplicaSet", rs.Name, "Warning", "FailedCreate", "replicaset-controller",
		`(combined from similar events): Error creating: pods "allocation-manager-6597bc46dc-2wm8j" is forbidden: exceeded quota: namespace-quota, requested: limits.cpu=1,limits.memory=2Gi, used: limits.cpu=6,limits.memory=12Gi, limited: limits.cpu=6,limits.memory=12Gi`,
		2*time.Minute, 124, 6*24*time.Hour)
	// The Deployment controller's ScalingReplicaSet event:
	// pkg/controller/deployment/sync.go "Scaled up replica set %s from %d to %d" (v1.37.2).
	scaled := event("Deployment", d.Name, "Normal", "ScalingReplicaSet", "deployment-controller",
		"Scaled up replica set allocation-manager-6597bc46dc from 0 to 1", 6*24*time.Hour, 1, 0)
	q := &corev1.ResourceQuota{ObjectMeta: meta("ResourceQuota", "namespace-quota", nil),
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"limits.cpu": resource.MustParse("6"), "limits.memory": resource.MustParse("12Gi"), "pods": resource.MustParse("20")}},
		Status: corev1.ResourceQuotaStatus{
			Hard: corev1.ResourceList{"limits.cpu": resource.MustParse("6"), "limits.memory": resource.MustParse("12Gi"), "pods": resource.MustParse("20")},
			Used: corev1.ResourceList{"limits.cpu": resource.MustParse("6"), "limits.memory": resource.MustParse("12Gi"), "pods": resource.MustParse("6")}}}
	lr := &corev1.LimitRange{ObjectMeta: meta("LimitRange", "defaults", nil), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
		DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, UID: uid("Namespace", ns), Labels: map[string]string{"kubernetes.io/metadata.name": ns}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	cs := client(d, rs, old, failed, scaled, q, lr, namespace)
	out["deployment-quota.txt"] = run(withClient[describe.DeploymentDescriber](cs), ns, d.Name) + "\n\n" +
		run(&describe.ReplicaSetDescriber{Interface: cs}, ns, rs.Name)
	out["resourcequota.txt"] = run(&describe.ResourceQuotaDescriber{Interface: cs}, ns, q.Name)
	out["namespace.txt"] = run(&describe.NamespaceDescriber{Interface: cs}, "", ns)
}

// job: a Job whose pod a pods quota refuses, the FailedCreate messages
// of https://github.com/kubernetes/kubernetes/issues/88718
// (testdata/real/incidents/jobs.yaml); and a CronJob's Job that reached
// its backoff limit.
func job(out map[string]string) {
	labels := map[string]string{"batch.kubernetes.io/job-name": "job-test-4", "batch.kubernetes.io/controller-uid": "Job-job-test-4"}
	j := &batchv1.Job{ObjectMeta: meta("Job", "job-test-4", labels),
		Spec: batchv1.JobSpec{Parallelism: i32(1), Completions: i32(1), BackoffLimit: i32(6), Suspend: &no,
			CompletionMode: ptr(batchv1.NonIndexedCompletion),
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "Job-job-test-4"}},
			Template:       template(map[string]string{"app": "job-test", "batch.kubernetes.io/job-name": "job-test-4", "batch.kubernetes.io/controller-uid": "Job-job-test-4"}, "busybox:1.36", corev1.ResourceRequirements{})},
		Status: batchv1.JobStatus{Ready: i32(0), StartTime: ptr(ago(20 * time.Minute))}}
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	var objs []runtime.Object
	objs = append(objs, j)
	for i, pod := range []string{"job-test-4-9zfnl", "job-test-4-llvdv", "job-test-4-xrpml"} {
		objs = append(objs, event("Job", j.Name, "Warning", "FailedCreate", "job-controller",
			`Error creating: pods "`+pod+`" is forbidden: exceeded quota: default, requested: pods=1, used: pods=9, limited: pods=9`,
			time.Duration(18-6*i)*time.Minute, 1, 0))
	}
	q := &corev1.ResourceQuota{ObjectMeta: meta("ResourceQuota", "default", nil),
		Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{"pods": resource.MustParse("9")}, Used: corev1.ResourceList{"pods": resource.MustParse("9")}}}
	q.Spec.Hard = q.Status.Hard
	objs = append(objs, q)
	cs := client(objs...)
	out["job-quota.txt"] = run(&describe.JobDescriber{Interface: cs}, ns, j.Name) + "\n\n" +
		run(&describe.ResourceQuotaDescriber{Interface: cs}, ns, q.Name)

	// A CronJob and its last Job, which failed. The events: the CronJob
	// controller's "Created job %v" (pkg/controller/cronjob/cronjob_controllerv2.go)
	// and "Saw completed job: %s, condition: %v" (same file); the Job
	// controller's "Created pod: %v" (pkg/controller/controller_utils.go)
	// and its failure condition's reason and message, "Job has reached
	// the specified backoff limit" (pkg/controller/job/job_controller.go),
	// all at v1.37.2.
	cjLabels := map[string]string{"app": "nightly"}
	cj := &batchv1.CronJob{ObjectMeta: meta("CronJob", "nightly", cjLabels),
		Spec: batchv1.CronJobSpec{Schedule: "0 2 * * *", ConcurrencyPolicy: batchv1.ForbidConcurrent, Suspend: &no,
			SuccessfulJobsHistoryLimit: i32(3), FailedJobsHistoryLimit: i32(1),
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{BackoffLimit: i32(2), Template: template(cjLabels, "registry.example.com/shop/report:1.9", corev1.ResourceRequirements{})}}},
		Status: batchv1.CronJobStatus{LastScheduleTime: ptr(ago(50 * time.Minute))}}
	cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	runName := "nightly-29262360"
	rl := map[string]string{"app": "nightly", "batch.kubernetes.io/job-name": runName, "batch.kubernetes.io/controller-uid": "Job-" + runName}
	run1 := &batchv1.Job{ObjectMeta: meta("Job", runName, rl),
		Spec: batchv1.JobSpec{Parallelism: i32(1), Completions: i32(1), BackoffLimit: i32(2), Suspend: &no, CompletionMode: ptr(batchv1.NonIndexedCompletion),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "Job-" + runName}},
			Template: template(rl, "registry.example.com/shop/report:1.9", corev1.ResourceRequirements{})},
		Status: batchv1.JobStatus{Ready: i32(0), Failed: 3, StartTime: ptr(ago(50 * time.Minute))}}
	run1.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	run1.OwnerReferences = ctrl("CronJob", "nightly")
	run1.CreationTimestamp = ago(50 * time.Minute)
	cs = client(cj, run1,
		event("CronJob", "nightly", "Normal", "SuccessfulCreate", "cronjob-controller", "Created job "+runName, 50*time.Minute, 1, 0),
		event("CronJob", "nightly", "Normal", "SawCompletedJob", "cronjob-controller", "Saw completed job: "+runName+", condition: Failed", 44*time.Minute, 1, 0),
		event("Job", runName, "Normal", "SuccessfulCreate", "job-controller", "Created pod: "+runName+"-7xkqp", 50*time.Minute, 1, 0),
		event("Job", runName, "Normal", "SuccessfulCreate", "job-controller", "Created pod: "+runName+"-m2c4n", 48*time.Minute, 1, 0),
		event("Job", runName, "Normal", "SuccessfulCreate", "job-controller", "Created pod: "+runName+"-r9d5t", 46*time.Minute, 1, 0),
		event("Job", runName, "Warning", "BackoffLimitExceeded", "job-controller", "Job has reached the specified backoff limit", 44*time.Minute, 1, 0))
	cjd := withClient[describe.CronJobDescriber](cs)
	out["cronjob.txt"] = run(cjd, ns, cj.Name) + "\n\n" + run(&describe.JobDescriber{Interface: cs}, ns, runName)
}

func ptr[T any](v T) *T { return &v }

// nodes: a node whose kubelet stopped posting status, with a DaemonSet's
// pod and a Deployment's pod on it; and one whose runtime is down. The
// messages: the node lifecycle controller's "Kubelet stopped posting node
// status." (reason NodeStatusUnknown) and its taints
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go), its
// MarkPodsNotReady event "Node is not ready" (pkg/controller/util/node/
// controller_utils.go), its node event "Node %s status is now: %s" (same
// file); the kubelet's ready condition "kubelet is posting ready status"
// (KubeletReady) and, when its runtime is down, KubeletNotReady with the
// runtime state's error "container runtime is down"
// (pkg/kubelet/nodestatus/setters.go, pkg/kubelet/runtime.go), at v1.37.2.
func nodes(out map[string]string) {
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16393152Ki"),
		corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("101430960Ki")}
	node := func(name string, ready corev1.NodeCondition, taints []corev1.Taint) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("Node", name), CreationTimestamp: ago(30 * 24 * time.Hour),
			Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
			Spec: corev1.NodeSpec{Taints: taints, PodCIDR: "10.244.2.0/24", PodCIDRs: []string{"10.244.2.0/24"}},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
				Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "172.18.0.4"}, {Type: corev1.NodeHostName, Address: name}},
				NodeInfo: corev1.NodeSystemInfo{KernelVersion: "6.8.0-45-generic", OSImage: "Ubuntu 24.04.1 LTS", OperatingSystem: "linux", Architecture: "amd64",
					ContainerRuntimeVersion: "containerd://2.1.4", KubeletVersion: "v1.37.2"}}}
		pressure := func(t corev1.NodeConditionType, reason, msg string) corev1.NodeCondition {
			return corev1.NodeCondition{Type: t, Status: ready.Status, Reason: reason, Message: msg, LastHeartbeatTime: ready.LastHeartbeatTime, LastTransitionTime: ready.LastTransitionTime}
		}
		if ready.Status == corev1.ConditionUnknown {
			n.Status.Conditions = []corev1.NodeCondition{
				pressure(corev1.NodeMemoryPressure, "NodeStatusUnknown", "Kubelet stopped posting node status."),
				pressure(corev1.NodeDiskPressure, "NodeStatusUnknown", "Kubelet stopped posting node status."),
				pressure(corev1.NodePIDPressure, "NodeStatusUnknown", "Kubelet stopped posting node status."),
				ready}
		} else {
			// The kubelet's pressure conditions (pkg/kubelet/nodestatus/setters.go, v1.37.2).
			ok := func(t corev1.NodeConditionType, reason, msg string) corev1.NodeCondition {
				c := pressure(t, reason, msg)
				c.Status = corev1.ConditionFalse
				return c
			}
			n.Status.Conditions = []corev1.NodeCondition{
				ok(corev1.NodeMemoryPressure, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				ok(corev1.NodeDiskPressure, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				ok(corev1.NodePIDPressure, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				ready}
		}
		return n
	}
	gone := node("node-2", corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown",
		Message: "Kubelet stopped posting node status.", LastHeartbeatTime: ago(9 * time.Minute), LastTransitionTime: ago(8 * time.Minute)},
		[]corev1.Taint{{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute, TimeAdded: ptr(ago(8 * time.Minute))},
			{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoSchedule}})
	down := node("node-3", corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady",
		Message: "container runtime is down", LastHeartbeatTime: ago(20 * time.Second), LastTransitionTime: ago(4 * time.Minute)},
		[]corev1.Taint{{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoSchedule}})
	down.Spec.Unschedulable = true
	down.Spec.Taints = append(down.Spec.Taints, corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule})

	dsLabels := map[string]string{"app": "node-exporter"}
	ds := &appsv1.DaemonSet{ObjectMeta: meta("DaemonSet", "node-exporter", dsLabels),
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: dsLabels},
			Template:       template(dsLabels, "quay.io/prometheus/node-exporter:v1.9.1", corev1.ResourceRequirements{}),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, UpdatedNumberScheduled: 2, NumberAvailable: 1, NumberReady: 1, NumberUnavailable: 1}}
	webLabels := map[string]string{"app": "web", "pod-template-hash": "7c9d8f6b5"}
	pod := func(name string, labels map[string]string, owner []metav1.OwnerReference, node string, ready bool, image string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: uid("Pod", name), Labels: labels, OwnerReferences: owner, CreationTimestamp: ago(90 * time.Minute)},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: labels["app"], Image: image,
				Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}},
				Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
					{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.2.7", PodIPs: []corev1.PodIP{{IP: "10.244.2.7"}}, HostIP: "172.18.0.4", StartTime: ptr(ago(90 * time.Minute)), QOSClass: corev1.PodQOSBestEffort}}
		status := corev1.ConditionTrue
		if !ready {
			status = corev1.ConditionFalse
		}
		p.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue}, {Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: status, LastTransitionTime: ago(8 * time.Minute)}, {Type: corev1.ContainersReady, Status: status}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: labels["app"], Image: image, ImageID: "", Ready: ready, Started: &ready,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ago(89 * time.Minute)}}}}
		return p
	}
	web := pod("web-7c9d8f6b5-x2x7q", webLabels, ctrl("ReplicaSet", "web-7c9d8f6b5"), "node-2", false, "registry.example.com/shop/web:1.4")
	exp := pod("node-exporter-q8z4m", map[string]string{"app": "node-exporter", "controller-revision-hash": "6b7f9c8d5d", "pod-template-generation": "1"},
		ctrl("DaemonSet", "node-exporter"), "node-2", false, "quay.io/prometheus/node-exporter:v1.9.1")
	exp1 := pod("node-exporter-h7k2w", map[string]string{"app": "node-exporter", "controller-revision-hash": "6b7f9c8d5d", "pod-template-generation": "1"},
		ctrl("DaemonSet", "node-exporter"), "node-1", true, "quay.io/prometheus/node-exporter:v1.9.1")
	exp1.Status.PodIP, exp1.Status.PodIPs, exp1.Status.HostIP = "10.244.1.5", []corev1.PodIP{{IP: "10.244.1.5"}}, "172.18.0.3"
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "node-2", Namespace: corev1.NamespaceNodeLease},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: str("node-2"), RenewTime: ptr(metav1.NewMicroTime(now.Add(-9 * time.Minute)))}}
	lease3 := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "node-3", Namespace: corev1.NamespaceNodeLease},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: str("node-3"), RenewTime: ptr(metav1.NewMicroTime(now.Add(-5 * time.Second)))}}
	notReady := func(p *corev1.Pod) *corev1.Event {
		return event("Pod", p.Name, "Warning", "NodeNotReady", "node-controller", "Node is not ready", 8*time.Minute, 1, 0)
	}
	cs := client(gone, down, lease, lease3, ds, web, exp, exp1, notReady(web), notReady(exp),
		event("Node", "node-2", "Normal", "NodeNotReady", "node-controller", "Node node-2 status is now: NodeNotReady", 8*time.Minute, 1, 0))
	out["node-unknown.txt"] = run(&describe.NodeDescriber{Interface: cs}, "", "node-2")
	out["node-runtime-down.txt"] = run(&describe.NodeDescriber{Interface: cs}, "", "node-3")
	out["pod-on-lost-node.txt"] = run(&describe.PodDescriber{Interface: cs}, ns, web.Name)
	out["daemonset.txt"] = run(&describe.DaemonSetDescriber{Interface: cs}, ns, ds.Name) + "\n\n" +
		run(&describe.PodDescriber{Interface: cs}, ns, exp.Name)
}

// storage: a StatefulSet whose claim names a StorageClass that does not
// exist. The messages: the scheduler's "pod has unbound immediate
// PersistentVolumeClaims" (pkg/scheduler/framework/plugins/volumebinding,
// ErrReasonUnboundImmediatePVC) in the FailedScheduling form of
// pkg/scheduler/framework/types.go, "0/%v nodes are available: %v." with
// the preemption tail of pkg/scheduler/framework/preemption (ending in
// two dots, as testdata/real/pastes/radius-8241-events.txt shows
// it); the volume
// controller's ProvisioningFailed with the API's NotFound error
// (`storageclass.storage.k8s.io "fast" not found`,
// pkg/controller/volume/persistentvolume/pv_controller.go), at v1.37.2.
func storage(out map[string]string) {
	labels := map[string]string{"app": "db"}
	sts := &appsv1.StatefulSet{ObjectMeta: meta("StatefulSet", "db", labels),
		Spec: appsv1.StatefulSetSpec{Replicas: i32(3), ServiceName: "db", PodManagementPolicy: appsv1.OrderedReadyPodManagement,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: template(labels, "postgres:17.2", corev1.ResourceRequirements{}),
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: i32(0)}},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: str("fast"), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}}}}},
		Status: appsv1.StatefulSetStatus{Replicas: 1, CurrentRevision: "db-5d7f8b9c6d", UpdateRevision: "db-5d7f8b9c6d"}}
	sts.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}
	podLabels := map[string]string{"app": "db", "apps.kubernetes.io/pod-index": "0", "controller-revision-hash": "db-5d7f8b9c6d", "statefulset.kubernetes.io/pod-name": "db-0"}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: ns, UID: uid("Pod", "db-0"), Labels: podLabels, OwnerReferences: ctrl("StatefulSet", "db"), CreationTimestamp: ago(15 * time.Minute)},
		Spec: corev1.PodSpec{Hostname: "db-0", Subdomain: "db", Containers: []corev1.Container{{Name: "db", Image: "postgres:17.2",
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-db-0"}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
				Message: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.."}}}}
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data-db-0", Namespace: ns, UID: uid("PersistentVolumeClaim", "data-db-0"),
		Labels: map[string]string{"app": "db"}, Finalizers: []string{"kubernetes.io/pvc-protection"}, CreationTimestamp: ago(15 * time.Minute)},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: str("fast"), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			VolumeMode: ptr(corev1.PersistentVolumeFilesystem),
			Resources:  corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	cs := client(sts, pod, claim,
		// The StatefulSet controller's "create Claim %s Pod %s in StatefulSet %s success" and
		// "create Pod %s in StatefulSet %s successful" (pkg/controller/statefulset/stateful_pod_control.go, v1.37.2).
		event("StatefulSet", "db", "Normal", "SuccessfulCreate", "statefulset-controller", "create Claim data-db-0 Pod db-0 in StatefulSet db success", 15*time.Minute, 1, 0),
		event("StatefulSet", "db", "Normal", "SuccessfulCreate", "statefulset-controller", "create Pod db-0 in StatefulSet db successful", 15*time.Minute, 1, 0),
		event("Pod", "db-0", "Warning", "FailedScheduling", "default-scheduler",
			"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..", 2*time.Minute, 4, 13*time.Minute),
		event("PersistentVolumeClaim", "data-db-0", "Warning", "ProvisioningFailed", "persistentvolume-controller",
			`storageclass.storage.k8s.io "fast" not found`, 2*time.Minute, 62, 13*time.Minute))
	out["statefulset.txt"] = run(withClient[describe.StatefulSetDescriber](cs), ns, "db")
	out["pvc.txt"] = run(&describe.PersistentVolumeClaimDescriber{Interface: cs}, ns, "data-db-0")
	out["sts-pod.txt"] = run(&describe.PodDescriber{Interface: cs}, ns, "db-0")
}

// serving: the Service, Endpoints, EndpointSlice and Ingress in front of
// the pod of web on node-2 (nodes), which is not ready: its address is
// not ready.
func serving(out map[string]string) {
	labels := map[string]string{"app": "web"}
	svc := &corev1.Service{ObjectMeta: meta("Service", "web", labels),
		Spec: corev1.ServiceSpec{Selector: labels, Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.41.17", ClusterIPs: []string{"10.96.41.17"},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, IPFamilyPolicy: ptr(corev1.IPFamilyPolicySingleStack),
			Ports:           []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}},
			SessionAffinity: corev1.ServiceAffinityNone, InternalTrafficPolicy: ptr(corev1.ServiceInternalTrafficPolicyCluster)}}
	ep := &corev1.Endpoints{ObjectMeta: meta("Endpoints", "web", labels),
		Subsets: []corev1.EndpointSubset{{NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.244.2.7", NodeName: str("node-2"),
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "web-7c9d8f6b5-x2x7q", Namespace: ns}}},
			Ports: []corev1.EndpointPort{{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}}}}}
	slice := &discoveryv1.EndpointSlice{ObjectMeta: meta("EndpointSlice", "web-8kq2d", map[string]string{"app": "web", discoveryv1.LabelServiceName: "web",
		discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}),
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: str("http"), Port: i32(8080), Protocol: ptr(corev1.ProtocolTCP)}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.2.7"}, Conditions: discoveryv1.EndpointConditions{Ready: &no, Serving: &no, Terminating: &no},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "web-7c9d8f6b5-x2x7q", Namespace: ns}, NodeName: str("node-2"), Zone: str("zone-b")}}}
	slice.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: uid("Service", "web"), Controller: &yes}}
	pathType := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{ObjectMeta: meta("Ingress", "web", labels),
		Spec: networkingv1.IngressSpec{IngressClassName: str("nginx"), Rules: []networkingv1.IngressRule{{Host: "shop.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &pathType,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "172.18.0.240"}}}}}
	cs := client(svc, ep, slice, ing)
	out["service.txt"] = run(&describe.ServiceDescriber{Interface: cs}, ns, "web")
	out["endpoints.txt"] = run(&describe.EndpointsDescriber{Interface: cs}, ns, "web")
	out["endpointslice.txt"] = run(&describe.EndpointSliceDescriber{Interface: cs}, ns, slice.Name)
	out["ingress.txt"] = run(withClient[describe.IngressDescriber](cs), ns, "web")

}
