package catalog

import (
	"testing"
	"time"
)

// TestOutage: a manifest's outage length becomes the second it ends, which
// both engines read back; anything else is left alone or refused.
func TestOutage(t *testing.T) {
	now := time.Unix(1764920000, 0)
	img := Localize(Host+"/outage/503-20s/web:v1", now)
	if img != Host+"/outage/503-until-1764920020/web:v1" {
		t.Fatalf("Localize: %s", img)
	}
	o, ok := ParseOutage("outage/503-until-1764920020/web")
	if !ok || o.Status != 503 || !o.Until.Equal(now.Add(20*time.Second)) || o.Repo != "web" {
		t.Errorf("ParseOutage: %+v %v", o, ok)
	}
	if forever := Localize(Host+"/outage/429-forever/web:v1", now); forever != Host+"/outage/429-until-1796456000/web:v1" {
		t.Errorf("forever: %s", forever)
	}
	for _, repo := range []string{"web", "outage/503-20s/web", "outage/404-until-1/web", "outage/503-until-x/web", "outage/503-until-1"} {
		if o, ok := ParseOutage(repo); ok {
			t.Errorf("ParseOutage(%q) = %+v, want none", repo, o)
		}
	}
	for _, img := range []string{Host + "/web:v1", "other.example/outage/503-20s/web:v1", Host + "/outage/503-soon/web:v1"} {
		if got := Localize(img, now); got != img {
			t.Errorf("Localize(%q) = %q, want it unchanged", img, got)
		}
	}
}

// TestSlow: a slow repository path names its length and the repository
// below it.
func TestSlow(t *testing.T) {
	if d, repo, ok := ParseSlow("slow/30s/web"); !ok || d != 30*time.Second || repo != "web" {
		t.Errorf("ParseSlow: %v %q %v", d, repo, ok)
	}
	img := Localize(Host+"/slow/30s/web:v1", time.Unix(0, 42))
	if img != Host+"/slow/30s-16/web:v1" || Localize(img, time.Unix(0, 43)) != img {
		t.Errorf("Localize of a slow path: %s", img)
	}
	if d, repo, ok := ParseSlow("slow/30s-16/web"); !ok || d != 30*time.Second || repo != "web" {
		t.Errorf("ParseSlow of a localized path: %v %q %v", d, repo, ok)
	}
	for _, repo := range []string{"web", "slow/web", "slow/-1s/web", "slow/2h/web", "slow/soon/web"} {
		if _, _, ok := ParseSlow(repo); ok {
			t.Errorf("ParseSlow(%q) ok, want none", repo)
		}
	}
}
