package main

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// rollout: revision 1 has served for two hours (its events expired); the
// image was changed to a tag that does not exist at t1; now is later.
func rollout(name string, t0 time.Time, now time.Duration, deadline bool) *G {
	img := "registry.lab.internal/shop/web:1.5.0"
	g := newG(name, t0)
	newT := webTemplate(img)
	g.deployment(newT, 3, 2, "2")
	old := g.replicaSet(webTemplate(webImage), "1", 3, 0)
	for n := 1; n <= 3; n++ {
		p := g.pod(old, 0, n)
		g.runningReady(p, s, 10*s)
	}
	rsStatus(old, 3, 3, 3)
	t1 := 2 * time.Hour
	nrs := g.replicaSet(newT, "2", 1, t1)
	g.scaledUp(nrs, 0, 1, t1)
	p := g.pod(nrs, t1, 2)
	g.createdPod(nrs, p, t1)
	g.assigned(p, t1)
	pulls, backoffs := int32(4), int32(12)
	if deadline {
		pulls, backoffs = 8, 49
	}
	g.pullFailing(p, t1, t1+now, pulls, backoffs, notFoundErr(img))
	rsStatus(nrs, 1, 0, 0)
	g.depStatus(4, 1, 3, 3)
	prog := progressing(g, nrs, t1, 0)
	if deadline {
		prog = timedOut(g, nrs, t1+10*m)
	}
	g.conds(available(g, 11*s, 11*s), prog)
	return g
}

func rollingUpdateBroken() *G {
	return rollout("rolling-update-broken", day(20, 8, 0), 3*m+20*s, false)
}
func progressDeadline() *G { return rollout("progress-deadline", day(20, 14, 0), 12*m, true) }

// oldHealthy is revision 1 with 3 ready pods whose events expired.
func oldHealthy(g *G) *appsv1.ReplicaSet {
	old := g.replicaSet(webTemplate(webImage), "1", 3, 0)
	for n := 1; n <= 3; n++ {
		g.runningReady(g.pod(old, 0, n), s, 10*s)
	}
	rsStatus(old, 3, 3, 3)
	return old
}

// paused: kubectl rollout pause, then kubectl set image, an hour after creation.
func paused() *G {
	g := newG("paused", day(21, 10, 0))
	d := g.deployment(webTemplate("registry.lab.internal/shop/web:1.5.0"), 3, 3, "1")
	d.Spec.Paused = true
	oldHealthy(g)
	g.depStatus(3, 0, 3, 3)
	// sync.go "Deployment is paused"
	g.conds(available(g, 11*s, 11*s),
		g.dcond(appsv1.DeploymentProgressing, "Unknown", "DeploymentPaused", "Deployment is paused", time.Hour, time.Hour))
	return g
}

func scaledToZero() *G {
	g, rs := fresh("scaled-to-zero", day(21, 13, 0), webTemplate(webImage), 3)
	var gone []*corev1.Pod
	for n := 1; n <= 3; n++ {
		gone = append(gone, g.healthyPod(rs, 0, n, true))
	}
	at := 20 * m
	g.d.Spec.Replicas = ptr(int32(0))
	g.d.Generation, g.d.Status.ObservedGeneration = 2, 2
	rs.Spec.Replicas = ptr(int32(0))
	rs.Generation, rs.Status.ObservedGeneration = 2, 2
	rs.Annotations["deployment.kubernetes.io/desired-replicas"] = "0"
	rs.Annotations["deployment.kubernetes.io/max-replicas"] = "0"
	g.scaledDown(rs, 3, 0, at)
	for _, p := range gone {
		g.ev(rsRef(rs), "", "Normal", "SuccessfulDelete", "Deleted pod: "+p.Name, rsCtl, "", at, at, 1)
		g.kev(p, "web", "Normal", "Killing", "Stopping container web", at, at, 1)
	}
	g.pods = nil
	rsStatus(rs, 0, 0, 0)
	g.depStatus(0, 0, 0, 0)
	g.conds(available(g, 11*s, 11*s), progressed(g, rs, 11*s, 0))
	return g
}

func minReady() *G {
	g := newG("minready", day(23, 10, 0))
	tmpl := webTemplate(webImage)
	d := g.deployment(tmpl, 3, 1, "1")
	d.Spec.MinReadySeconds = 30
	rs := g.replicaSet(tmpl, "1", 3, 0)
	rs.Spec.MinReadySeconds = 30
	g.scaledUp(rs, 0, 3, 0)
	for n := 1; n <= 3; n++ {
		g.healthyPod(rs, 0, n, true)
	}
	rsStatus(rs, 3, 3, 0)
	g.depStatus(3, 3, 3, 0)
	g.conds(unavailable(g, 0, 0), progressing(g, rs, 11*s, 0))
	return g
}

// generationNotObserved: the image was changed while the
// kube-controller-manager was down; revision 1's events expired.
func generationNotObserved() *G {
	g := newG("generation-not-observed", day(24, 11, 0))
	d := g.deployment(webTemplate("registry.lab.internal/shop/web:1.5.0"), 3, 2, "1")
	d.Status.ObservedGeneration = 1
	oldHealthy(g)
	g.depStatus(3, 3, 3, 3)
	g.conds(available(g, 11*s, 11*s), progressed(g, g.rss[0], 11*s, 0))
	return g
}
