package kube

import (
	"context"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// autoscalersAsync lists the namespace's HorizontalPodAutoscalers while a
// scalable workload is read (chain.Scalable): an autoscaler names its
// target, so which are the workload's is known only once they are read;
// like the Services, they cost a request and no round trip. Other kinds
// get nil.
func (r *Reader) autoscalersAsync(ctx context.Context, ns string, k chain.Kind) <-chan listed[autoscalingv2.HorizontalPodAutoscaler] {
	if !chain.Scalable(k) {
		return nil
	}
	ch := make(chan listed[autoscalingv2.HorizontalPodAutoscaler], 1)
	go func() {
		ch <- listing(func() ([]autoscalingv2.HorizontalPodAutoscaler, string, error) {
			l, err := r.Client.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, metav1.ListOptions{})
			return itemsOf(l, err, func(l *autoscalingv2.HorizontalPodAutoscalerList) []autoscalingv2.HorizontalPodAutoscaler {
				return l.Items
			})
		})
	}()
	return ch
}

// settleAutoscalers keeps the autoscalers of the snapshot's workload; a
// list that failed or was refused is a gap, which no link depends on.
func settleAutoscalers(snap *chain.Snapshot, ch <-chan listed[autoscalingv2.HorizontalPodAutoscaler]) error {
	if ch == nil {
		return nil
	}
	l := <-ch
	snap.Requests += l.requests
	if err := settleServing(snap, chain.ResourceAutoscalers, l.err); err != nil || l.err != nil {
		return err
	}
	snap.Autoscalers = chain.Targeting(l.items, snap.KindOf(), snap.Name)
	return nil
}

// drain waits for an autoscalers list sent beside a GET that failed: the
// read ends when both have.
func drain[T any](ch <-chan T) {
	if ch != nil {
		<-ch
	}
}
