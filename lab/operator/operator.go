// Package operator is the lab's own operator, built on controller-runtime:
// a Shop (lab.kubectl-chain.io/v1alpha1) runs a web Deployment and a db
// StatefulSet with a claim per ordinal, owns them, and reports its state
// with the kstatus conventions: Ready, Reconciling while its children are
// not ready, Stalled once that has lasted past its progress deadline. It
// gives the lab owner chains to play: a custom resource whose cause sits
// in a workload it owns.
//
// Only the lab binary may import it: controller-runtime is not the
// diagnosis binary's.
package operator

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kubectl-chain/kubectl-chain/lab/crd"
	"github.com/kubectl-chain/kubectl-chain/lab/pki"
)

// ShopKind is the operator's kind, served at GroupVersion.
var (
	GroupVersion = schema.GroupVersion{Group: "lab.kubectl-chain.io", Version: "v1alpha1"}
	ShopKind     = GroupVersion.WithKind("Shop")
)

//go:embed shop-crd.yaml
var shopCRD []byte

// Resource is the Shops' path, which the component polls until its RBAC
// and the CRD are there.
const Resource = "/apis/lab.kubectl-chain.io/v1alpha1/shops"

// requeue is how often a Shop that is not ready is looked at again.
const requeue = 5 * time.Second

// Run runs the operator with the kubeconfig until ctx ends.
func Run(ctx context.Context, kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	ctrl.SetLogger(klog.NewKlogr())
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		return err
	}
	r := &reconciler{c: mgr.GetClient(), scheme: scheme}
	if err := ctrl.NewControllerManagedBy(mgr).For(newShop()).Owns(&appsv1.Deployment{}).Owns(&appsv1.StatefulSet{}).Complete(r); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

func newShop() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ShopKind)
	return u
}

// spec is a Shop's spec, with the CRD's defaults.
type spec struct {
	Image                   string `json:"image"`
	WebReplicas             int32  `json:"webReplicas"`
	DBReplicas              int32  `json:"dbReplicas"`
	DBStorage               string `json:"dbStorage"`
	StorageClassName        string `json:"storageClassName,omitempty"`
	ProgressDeadlineSeconds int64  `json:"progressDeadlineSeconds"`
}

type reconciler struct {
	c      client.Client
	scheme *runtime.Scheme
}

// Reconcile makes the Shop's children as its spec says, then writes its
// status from theirs.
func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	shop := newShop()
	if err := r.c.Get(ctx, req.NamespacedName, shop); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if shop.GetDeletionTimestamp() != nil {
		return ctrl.Result{}, nil
	}
	var s spec
	raw, _, _ := unstructured.NestedMap(shop.Object, "spec")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &s); err != nil {
		return ctrl.Result{}, err
	}
	web, db, err := r.children(ctx, shop, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	ready, msg := childrenReady(web, db)
	gen := shop.GetGeneration()
	observed, _, _ := unstructured.NestedInt64(shop.Object, "status", "observedGeneration")
	conds := nextConditions(conditionsOf(shop), ready, msg, gen, observed, time.Duration(s.ProgressDeadlineSeconds)*time.Second, time.Now())
	if err := r.writeStatus(ctx, shop, conds, gen); err != nil {
		return ctrl.Result{}, err
	}
	if ready {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// nextConditions are the Shop's conditions once its children are (or are
// not) ready, as the kstatus conventions have them: Ready; Reconciling
// while they are not, from when Ready turned False for this generation,
// until deadline; Stalled after it, and no longer Reconciling (kstatus
// reads the first of the two that is True).
func nextConditions(conds []metav1.Condition, ready bool, msg string, gen, observed int64, deadline time.Duration, now time.Time) []metav1.Condition {
	set := func(typ string, st metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&conds, metav1.Condition{Type: typ, Status: st, Reason: reason, Message: message, ObservedGeneration: gen,
			LastTransitionTime: metav1.NewTime(now)})
	}
	if ready {
		set("Ready", metav1.ConditionTrue, "Reconciled", msg)
		meta.RemoveStatusCondition(&conds, "Reconciling")
		meta.RemoveStatusCondition(&conds, "Stalled")
		return conds
	}
	if observed != gen {
		// A new spec: its deadline starts now.
		for _, t := range []string{"Ready", "Reconciling", "Stalled"} {
			meta.RemoveStatusCondition(&conds, t)
		}
	}
	set("Ready", metav1.ConditionFalse, "ChildrenNotReady", msg)
	if since := meta.FindStatusCondition(conds, "Ready").LastTransitionTime.Time; now.Sub(since) > deadline {
		meta.RemoveStatusCondition(&conds, "Reconciling")
		set("Stalled", metav1.ConditionTrue, "ProgressDeadlineExceeded", fmt.Sprintf("%s after its progress deadline of %s", msg, deadline))
		return conds
	}
	set("Reconciling", metav1.ConditionTrue, "ChildrenNotReady", msg)
	return conds
}

// children creates or updates the web Deployment, the db StatefulSet and
// its headless Service, owned by the Shop.
func (r *reconciler) children(ctx context.Context, shop *unstructured.Unstructured, s spec) (*appsv1.Deployment, *appsv1.StatefulSet, error) {
	ns, name := shop.GetNamespace(), shop.GetName()
	labels := func(part string) map[string]string {
		return map[string]string{"app": name + "-" + part, "lab.kubectl-chain.io/shop": name}
	}
	container := corev1.Container{Name: "app", Image: s.Image}
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-web"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.c, web, func() error {
		web.Spec.Replicas = ptr.To(s.WebReplicas)
		web.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels("web")}
		web.Spec.Template.Labels = labels("web")
		web.Spec.Template.Spec.Containers = []corev1.Container{container}
		return controllerutil.SetControllerReference(shop, web, r.scheme)
	}); err != nil {
		return nil, nil, fmt.Errorf("deployment %s: %w", web.Name, err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-db"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.c, svc, func() error {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
		svc.Spec.Selector = labels("db")
		svc.Spec.Ports = []corev1.ServicePort{{Name: "db", Port: 5432}}
		return controllerutil.SetControllerReference(shop, svc, r.scheme)
	}); err != nil {
		return nil, nil, fmt.Errorf("service %s: %w", svc.Name, err)
	}
	size, err := resource.ParseQuantity(s.DBStorage)
	if err != nil {
		return nil, nil, fmt.Errorf("spec.dbStorage %q: %w", s.DBStorage, err)
	}
	db := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-db"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.c, db, func() error {
		db.Spec.Replicas = ptr.To(s.DBReplicas)
		db.Spec.Template.Spec.Containers = []corev1.Container{container}
		if db.CreationTimestamp.IsZero() {
			// Immutable once created.
			db.Spec.ServiceName = svc.Name
			db.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels("db")}
			db.Spec.Template.Labels = labels("db")
			claim := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}}}}
			if s.StorageClassName != "" {
				claim.Spec.StorageClassName = ptr.To(s.StorageClassName)
			}
			db.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{claim}
		}
		db.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
		return controllerutil.SetControllerReference(shop, db, r.scheme)
	}); err != nil {
		return nil, nil, fmt.Errorf("statefulset %s: %w", db.Name, err)
	}
	return web, db, nil
}

// childrenReady says both children are ready, and how far they are.
func childrenReady(web *appsv1.Deployment, db *appsv1.StatefulSet) (bool, string) {
	w, d := ptr.Deref(web.Spec.Replicas, 1), ptr.Deref(db.Spec.Replicas, 1)
	webOK := web.Status.ObservedGeneration >= web.Generation && web.Status.UpdatedReplicas == w && web.Status.AvailableReplicas == w
	dbOK := db.Status.ObservedGeneration >= db.Generation && db.Status.UpdatedReplicas == d && db.Status.ReadyReplicas == d
	msg := fmt.Sprintf("deployment %s %d/%d available, statefulset %s %d/%d ready", web.Name, web.Status.AvailableReplicas, w, db.Name, db.Status.ReadyReplicas, d)
	return webOK && dbOK, msg
}

func conditionsOf(shop *unstructured.Unstructured) []metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(shop.Object, "status", "conditions")
	var out []metav1.Condition
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		var c metav1.Condition
		if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// writeStatus writes the conditions and observedGeneration when they
// changed.
func (r *reconciler) writeStatus(ctx context.Context, shop *unstructured.Unstructured, conds []metav1.Condition, gen int64) error {
	var list []any
	for i := range conds {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conds[i])
		if err != nil {
			return err
		}
		list = append(list, m)
	}
	before := shop.DeepCopy()
	if err := unstructured.SetNestedSlice(shop.Object, list, "status", "conditions"); err != nil {
		return err
	}
	if err := unstructured.SetNestedField(shop.Object, gen, "status", "observedGeneration"); err != nil {
		return err
	}
	if equalStatus(before, shop) {
		return nil
	}
	err := r.c.Status().Update(ctx, shop)
	if apierrors.IsConflict(err) {
		return nil // the watch brings the newer Shop
	}
	return err
}

func equalStatus(a, b *unstructured.Unstructured) bool {
	sa, _, _ := unstructured.NestedFieldNoCopy(a.Object, "status")
	sb, _, _ := unstructured.NestedFieldNoCopy(b.Object, "status")
	return equality.Semantic.DeepEqual(sa, sb)
}

// User is the operator's user, whom Install grants its RBAC.
const User = pki.OperatorUser

const roleName = "kubectl-chain-lab:operator"

// Install creates the Shop CRD and the operator's RBAC with an
// administrator's client, and says whether the CRD is established.
func Install(ctx context.Context, c kubernetes.Interface) (bool, error) {
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: roleName}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{GroupVersion.Group}, Resources: []string{"shops"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{GroupVersion.Group}, Resources: []string{"shops/status"}, Verbs: []string{"get", "update", "patch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments", "statefulsets"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	}}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return false, fmt.Errorf("creating ClusterRole %s: %w", roleName, err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: roleName},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: User}}}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return false, fmt.Errorf("creating ClusterRoleBinding %s: %w", roleName, err)
	}
	return crd.Install(ctx, c, shopCRD)
}
