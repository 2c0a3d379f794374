package catalog

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// OutagePrefix starts a repository path on Host that the registry answers
// with an HTTP error status until a time, then serves as the catalogue's
// image below it: "outage/503-until-1764920000/web" is web, answered 503
// Service Unavailable until that Unix second. A scenario's manifest writes
// the fault's length ("outage/503-20s/web"), which `lab apply` turns into
// the time it ends (Localize), so every copy of a scenario gets its own
// outage from the moment it is applied.
const OutagePrefix = "outage/"

// Outage is a repository path's fault: the status answered until Until,
// and the repository served after it.
type Outage struct {
	Status int
	Until  time.Time
	Repo   string
}

// Statuses an outage may answer with: a registry's server errors and its
// rate limit.
var outageStatuses = map[int]bool{http.StatusInternalServerError: true, http.StatusServiceUnavailable: true, http.StatusTooManyRequests: true}

// ParseOutage reads a repository path ("outage/503-until-1764920000/web");
// false when the path has no outage or its fault is not localized.
func ParseOutage(repo string) (Outage, bool) {
	rest, ok := strings.CutPrefix(repo, OutagePrefix)
	if !ok {
		return Outage{}, false
	}
	fault, repo, ok := strings.Cut(rest, "/")
	if !ok {
		return Outage{}, false
	}
	status, until, ok := strings.Cut(fault, "-until-")
	code, err := strconv.Atoi(status)
	if !ok || err != nil || !outageStatuses[code] {
		return Outage{}, false
	}
	sec, err := strconv.ParseInt(until, 10, 64)
	if err != nil {
		return Outage{}, false
	}
	return Outage{Status: code, Until: time.Unix(sec, 0), Repo: repo}, true
}

// Localize turns an image's outage length into the time it ends, counted
// from now ("registry.lab.internal/outage/503-20s/web:v1" becomes
// ".../outage/503-until-UNIX/web:v1"; "forever" is a fault that never ends,
// a year), and makes a slow path unique ("slow/30s/web" becomes
// "slow/30s-ID/web"). Any other image is returned as it is.
func Localize(image string, now time.Time) string {
	if rest, ok := strings.CutPrefix(image, Host+"/"+SlowPrefix); ok {
		// A slow pull of its own: a node pulls a reference it does not
		// hold, so each copy of a scenario is slow, not only the first.
		length, repo, ok := strings.Cut(rest, "/")
		if !ok || strings.Contains(length, "-") {
			return image
		}
		return Host + "/" + SlowPrefix + length + "-" + strconv.FormatInt(now.UnixNano(), 36) + "/" + repo
	}
	rest, ok := strings.CutPrefix(image, Host+"/"+OutagePrefix)
	if !ok {
		return image
	}
	fault, repo, ok := strings.Cut(rest, "/")
	if !ok {
		return image
	}
	status, length, ok := strings.Cut(fault, "-")
	if !ok {
		return image
	}
	d, err := time.ParseDuration(length)
	if length == "forever" {
		d, err = 365*24*time.Hour, nil
	}
	if err != nil {
		return image
	}
	return Host + "/" + OutagePrefix + status + "-until-" + strconv.FormatInt(now.Add(d).Unix(), 10) + "/" + repo
}

// SlowPrefix starts a repository path on Host whose blobs the registry
// sends slowly, spread over a duration: "slow/30s/web" is web, each layer
// taking 30 s to arrive (bytes keep coming, so a runtime's pull progress
// timeout does not cancel it). The simulated kubelet's pull takes as long.
const SlowPrefix = "slow/"

// ParseSlow reads a repository path ("slow/30s/web", or as Localize makes
// it unique, "slow/30s-lq2x5k/web"): the time its blobs take and the
// repository below; false when the path is not slow.
func ParseSlow(repo string) (time.Duration, string, bool) {
	rest, ok := strings.CutPrefix(repo, SlowPrefix)
	if !ok {
		return 0, "", false
	}
	length, repo, ok := strings.Cut(rest, "/")
	length, _, _ = strings.Cut(length, "-")
	d, err := time.ParseDuration(length)
	if !ok || err != nil || d <= 0 || d > time.Hour {
		return 0, "", false
	}
	return d, repo, true
}
