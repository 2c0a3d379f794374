package scenarios

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// annotationLastScheduleAgo, on a scenario's CronJob, makes its
// status.lastScheduleTime that long ago once it is created: as if its
// controller had been down since then (cj-missed-starts).
const annotationLastScheduleAgo = "lab.kubectl-chain.io/last-schedule-ago"

// createCronJob creates a scenario's CronJob and, if it asks, writes its
// last schedule time in the past through the status subresource.
func createCronJob(ctx context.Context, c kubernetes.Interface, ns string, cj *batchv1.CronJob) error {
	ago, err := lastScheduleAgo(cj)
	if err != nil {
		return err
	}
	made, err := c.BatchV1().CronJobs(ns).Create(ctx, cj, metav1.CreateOptions{})
	if err != nil || ago == 0 {
		return err
	}
	made.Status.LastScheduleTime = &metav1.Time{Time: time.Now().Add(-ago)}
	_, err = c.BatchV1().CronJobs(ns).UpdateStatus(ctx, made, metav1.UpdateOptions{})
	return err
}

func lastScheduleAgo(cj *batchv1.CronJob) (time.Duration, error) {
	v, ok := cj.Annotations[annotationLastScheduleAgo]
	if !ok {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("cronjob %s: annotation %s=%q is not a positive duration", cj.Name, annotationLastScheduleAgo, v)
	}
	return d, nil
}
