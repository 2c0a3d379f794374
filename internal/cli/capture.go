package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// captureOptions is `kubectl chain capture deploy/NAME`.
type captureOptions struct {
	file    string
	keepEnv bool
}

func newCaptureCommand(o *Options) *cobra.Command {
	c := &captureOptions{}
	cmd := &cobra.Command{
		Use:   "capture [deploy/]NAME",
		Short: "Write a Deployment's chain (Deployment, ReplicaSets, Pods, events, and the claims, quotas and nodes they name) to one YAML file for offline analysis",
		Example: `  kubectl chain capture deploy/web --to web.yaml
  kubectl chain deploy/web -f web.yaml`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := parseTargets(args)
			if err != nil {
				return err
			}
			if len(targets) != 1 {
				return usageErrorf("capture one Deployment at a time")
			}
			o.targets = targets
			if err := o.useKubeconfig(); err != nil {
				return err
			}
			return c.run(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&c.file, "to", "", "the file to write (default: standard output); an existing file is not overwritten")
	cmd.Flags().BoolVar(&c.keepEnv, "keep-env", false, "keep environment variable values (dropped by default: they often hold credentials)")
	return cmd
}

func (c *captureOptions) run(ctx context.Context, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	client, err := o.NewClient()
	if err != nil {
		return translate(err)
	}
	reader := &kube.Reader{Client: client, Now: o.Now}
	if err := o.resolveLive(ctx, reader); err != nil {
		return err
	}
	snap, err := reader.Read(ctx, o.namespace, o.refs[0])
	if err != nil {
		return translate(err)
	}
	data, err := c.encode(snap, reader.Related(ctx, snap))
	if err != nil {
		return err
	}
	if c.file == "" {
		_, err := o.Out.Write(data)
		return err
	}
	// O_EXCL: a capture never replaces what the user already had.
	f, err := os.OpenFile(c.file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return usageErrorf("writing the capture: %v (choose another --to)", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return usageErrorf("writing the capture: %v", err)
	}
	if err := f.Close(); err != nil {
		return usageErrorf("writing the capture: %v", err)
	}
	fmt.Fprintf(o.ErrOut, "captured deployment %s/%s (%d ReplicaSets, %d pods, %d events) to %s\n",
		snap.Namespace, snap.Name, len(snap.ReplicaSets), len(snap.Pods), len(snap.Events), c.file)
	return nil
}

// encode writes the snapshot as a v1 List in the shape of kubectl get -o
// yaml, headed by a comment that records the capture time (the loader
// judges the capture at that time) and what was left out.
func (c *captureOptions) encode(s *chain.Snapshot, rel *kube.Related) ([]byte, error) {
	var left []string
	left = append(left, "managedFields", "last-applied-configuration annotations", "Secrets (never read)")
	if !c.keepEnv {
		left = append(left, "environment variable values (--keep-env keeps them)")
	}
	items := []any{typed(s.Deployment.DeepCopy(), "apps/v1", "Deployment", c.keepEnv)}
	for i := range s.ReplicaSets {
		items = append(items, typed(s.ReplicaSets[i].DeepCopy(), "apps/v1", "ReplicaSet", c.keepEnv))
	}
	for i := range s.Pods {
		items = append(items, typed(s.Pods[i].DeepCopy(), "v1", "Pod", c.keepEnv))
	}
	for _, e := range s.Events {
		items = append(items, coreEvent(s.Namespace, e))
	}
	for i := range rel.Claims {
		rel.Claims[i].APIVersion, rel.Claims[i].Kind = "v1", "PersistentVolumeClaim"
		items = append(items, &rel.Claims[i])
	}
	for i := range rel.Quotas {
		rel.Quotas[i].APIVersion, rel.Quotas[i].Kind = "v1", "ResourceQuota"
		items = append(items, &rel.Quotas[i])
	}
	for i := range rel.Nodes {
		rel.Nodes[i].APIVersion, rel.Nodes[i].Kind = "v1", "Node"
		items = append(items, &rel.Nodes[i])
	}
	for _, m := range rel.Missing {
		left = append(left, m+" could not be read")
	}
	for _, g := range s.Gaps {
		left = append(left, fmt.Sprintf("%s (could not be read: %s)", g.Resource, g.Message))
	}
	body, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		return nil, fmt.Errorf("encoding the capture: %w", err)
	}
	head := fmt.Sprintf("%s%s\n# left out: %s\n", capture.TimeComment, s.Now.UTC().Format(time.RFC3339Nano), strings.Join(left, "; "))
	return append([]byte(head), body...), nil
}

// typed strips what a capture must not carry or does not need, and sets the
// type meta the typed clients leave empty.
func typed(obj metav1.Object, apiVersion, kind string, keepEnv bool) any {
	obj.SetManagedFields(nil)
	if a := obj.GetAnnotations(); a != nil {
		delete(a, corev1.LastAppliedConfigAnnotation)
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		o.APIVersion, o.Kind = apiVersion, kind
		scrubEnv(&o.Spec.Template.Spec, keepEnv)
		return o
	case *appsv1.ReplicaSet:
		o.APIVersion, o.Kind = apiVersion, kind
		scrubEnv(&o.Spec.Template.Spec, keepEnv)
		return o
	case *corev1.Pod:
		o.APIVersion, o.Kind = apiVersion, kind
		scrubEnv(&o.Spec, keepEnv)
		return o
	}
	return obj
}

// scrubEnv replaces literal env values; references (valueFrom) stay, since
// they are evidence (a missing ConfigMap key) and hold no secret.
func scrubEnv(spec *corev1.PodSpec, keep bool) {
	if keep {
		return
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			for j := range cs[i].Env {
				if cs[i].Env[j].Value != "" {
					cs[i].Env[j].Value = "(dropped by kubectl chain capture)"
				}
			}
		}
	}
}

// coreEvent writes a normalised event back as the core/v1 event it reads as.
func coreEvent(ns string, e chain.Event) *corev1.Event {
	return &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s.%s", e.Object.Name, strings.ToLower(e.Reason))},
		InvolvedObject: corev1.ObjectReference{Kind: e.Object.Kind, Name: e.Object.Name, Namespace: ns, UID: e.Object.UID, FieldPath: e.FieldPath},
		Type:           e.Type, Reason: e.Reason, Message: e.Message, Count: e.Count,
		FirstTimestamp: metav1.NewTime(e.First), LastTimestamp: metav1.NewTime(e.Last),
		Source: corev1.EventSource{Component: e.Source},
	}
}
