package diagnose

import (
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// hpa is autoscaler shop/web of Deployment web with the conditions of
// k3s-io/k3s#8287 (a container without a CPU request).
func hpa() autoscalingv2.HorizontalPodAutoscaler {
	return autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 3,
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 1, Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "SucceededGetScale", Message: "the HPA controller was able to get the target's current scale"},
			{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "FailedGetResourceMetric",
				Message: "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container owncloud of Pod my-cloud-owncloud-5cdb678c48-8bgbm"},
		}},
	}
}

// TestAutoscalerNotes: a workload whose autoscaler cannot compute is
// healthy, with a note on stored naming the cause; an autoscaler of
// another workload is not its.
func TestAutoscalerNotes(t *testing.T) {
	s := walkSnapshot()
	s.Autoscalers = chain.Targeting([]autoscalingv2.HorizontalPodAutoscaler{hpa()}, chain.KindDeployment, "web")
	r := Walk(s, Options{})
	notes := strings.Join(r.Links[0].Notes, "\n")
	if !strings.Contains(notes, "HorizontalPodAutoscaler web cannot scale it (HPAMissingRequest): ScalingActive False, FailedGetResourceMetric") {
		t.Errorf("stored notes %q, want the autoscaler's", notes)
	}
	other := hpa()
	other.Spec.ScaleTargetRef.Name = "api"
	if got := chain.Targeting([]autoscalingv2.HorizontalPodAutoscaler{other}, chain.KindDeployment, "web"); len(got) != 0 {
		t.Errorf("an autoscaler of deployment/api kept for deployment/web")
	}
}

// TestAutoscalerStatus: as a target, an autoscaler that cannot compute is
// broken at status (kstatus would call it Current), one in back-off is
// not.
func TestAutoscalerStatus(t *testing.T) {
	api := chain.APIResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true}
	walk := func(h autoscalingv2.HorizontalPodAutoscaler) *chain.Report {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&h)
		if err != nil {
			t.Fatal(err)
		}
		obj := &unstructured.Unstructured{Object: u}
		obj.SetAPIVersion("autoscaling/v2")
		obj.SetKind("HorizontalPodAutoscaler")
		return Walk(&chain.Snapshot{Kind: chain.Kind(api.Kind), Namespace: "shop", Name: "web", API: &api, Object: obj}, Options{})
	}
	r := walk(hpa())
	if r.Verdict.Health != chain.Broken || r.Verdict.Link != chain.LinkStatus || r.Verdict.Cause != decode.HPAMissingRequest {
		t.Errorf("verdict %s at %s (%s), want broken at status (HPAMissingRequest)", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause)
	}
	backoff := hpa()
	// kubernetes/kubernetes#56165: a back-off is the controller waiting.
	backoff.Status.Conditions = []autoscalingv2.HorizontalPodAutoscalerCondition{
		{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionFalse, Reason: "BackoffBoth", Message: "the time since the previous scale is still within both the downscale and upscale forbidden windows"},
		{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionTrue, Reason: "ValidMetricFound"},
	}
	if r := walk(backoff); r.Verdict.Health != chain.Healthy {
		t.Errorf("an autoscaler in back-off: %s at %s (%s), want healthy", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause)
	}
}

// TestScaledObjectWords: a KEDA ScaledObject walked as a resource whose
// Ready condition says its trigger does not work (keda#6895, an AWS trigger
// that cannot authenticate) or its target is wrong (keda/http-add-on#1421)
// names the autoscaler's cause, not the health check's Degraded.
func TestScaledObjectWords(t *testing.T) {
	api := chain.APIResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects", Kind: "ScaledObject", Namespaced: true}
	for _, tt := range []struct {
		reason, message string
		cause           chain.CauseID
	}{
		{"TriggerError", "Triggers defined in ScaledObject are not working correctly", decode.HPAMetricsUnavailable},
		{"ScaledObjectCheckFailed", "ScaledObject doesn't have correct scaleTargetRef specification: ScaledObject.spec.scaleTargetRef.name is missing", decode.HPACannotScale},
	} {
		obj := resourceObject(api, "worker", 1, [4]string{"Ready", "False", tt.reason, tt.message})
		obj.SetCreationTimestamp(metav1.NewTime(walkT0))
		s := &chain.Snapshot{Kind: chain.Kind(api.Kind), API: &api, Namespace: "shop", Name: "worker", Object: obj, Now: walkT0.Add(10 * time.Minute)}
		v := Walk(s, Options{}).Verdict
		if v.Cause != tt.cause || v.Link != chain.LinkStatus || !strings.Contains(v.NextStep, "kubectl describe scaledobject worker -n shop") {
			t.Errorf("%s: %s at %s (%s; next %q), want %s at status with KEDA's step", tt.reason, v.Cause, v.Link, v.Summary, v.NextStep, tt.cause)
		}
	}
}

// TestVPAStatus: a VerticalPodAutoscaler walked as a resource whose
// recommender says its targetRef names no workload (autoscaler#5296) is
// broken at status, where kstatus would call it Current.
func TestVPAStatus(t *testing.T) {
	api := chain.APIResource{Group: "autoscaling.k8s.io", Version: "v1", Resource: "verticalpodautoscalers", Kind: "VerticalPodAutoscaler", Namespaced: true}
	obj := resourceObject(api, "my-app", 1,
		[4]string{"ConfigUnsupported", "True", "", "Cannot read targetRef. Reason: Deployment kube-system/my-app does not exist"},
		[4]string{"NoPodsMatched", "True", "NoPodsMatched", "No pods match this VPA object"},
		[4]string{"RecommendationProvided", "False", "NoPodsMatched", "No pods match this VPA object"})
	obj.SetCreationTimestamp(metav1.NewTime(walkT0))
	s := &chain.Snapshot{Kind: chain.Kind(api.Kind), API: &api, Namespace: "kube-system", Name: "my-app", Object: obj, Now: walkT0.Add(10 * time.Minute)}
	v := Walk(s, Options{}).Verdict
	if v.Cause != decode.VPATargetInvalid || v.Link != chain.LinkStatus || v.Health != chain.Broken || !strings.Contains(v.NextStep, "-n kube-system") {
		t.Errorf("%s %s at %s (%s; next %q), want VPATargetInvalid broken at status", v.Health, v.Cause, v.Link, v.Summary, v.NextStep)
	}
	// One whose recommender is content is not judged here.
	ok := resourceObject(api, "my-app", 1, [4]string{"RecommendationProvided", "True", "", ""})
	s.Object = ok
	if v := Walk(s, Options{}).Verdict; v.Cause == decode.VPATargetInvalid {
		t.Errorf("a VPA that recommends: %s", v.Cause)
	}
}

// TestAutoscalerEvents: an autoscaler whose status holds no condition is
// judged by the controller's Warning events, as describe shows them
// (kubernetes-sigs/metrics-server#41: no resource metrics API), and is
// healthy when it has none.
func TestAutoscalerEvents(t *testing.T) {
	api := chain.APIResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true}
	h := hpa()
	h.Status.Conditions = nil
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&h)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: u}
	obj.SetAPIVersion("autoscaling/v2")
	obj.SetKind("HorizontalPodAutoscaler")
	ev := chain.Event{Type: "Warning", Reason: "FailedGetResourceMetric", Count: 21, Object: chain.ObjectRef{Kind: "HorizontalPodAutoscaler", Name: "web"},
		Message: "unable to get metrics for resource cpu: unable to fetch metrics from API: the server could not find the requested resource (get pods.metrics.k8s.io)"}
	for _, tt := range []struct {
		name   string
		events []chain.Event
		health chain.Health
		cause  chain.CauseID
	}{
		{name: "metrics events", events: []chain.Event{ev}, health: chain.Broken, cause: decode.HPAMetricsUnavailable},
		{name: "no event", health: chain.Healthy},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Walk(&chain.Snapshot{Kind: chain.Kind(api.Kind), Namespace: "shop", Name: "web", API: &api, Object: obj, Events: tt.events}, Options{})
			if r.Verdict.Health != tt.health || r.Verdict.Cause != tt.cause {
				t.Errorf("verdict %s at %s (%s), want %s (%s)", r.Verdict.Health, r.Verdict.Link, r.Verdict.Cause, tt.health, tt.cause)
			}
		})
	}
}
