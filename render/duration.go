package render

import (
	"fmt"
	"time"
)

// shortDuration formats d like kubectl's AGE column (apimachinery
// util/duration.ShortHumanDuration): 5s, 3m, 2h, 4d, 1y. Ages are computed
// from the report's own time, so a snapshot analysed tomorrow reads the same.
func shortDuration(d time.Duration) string {
	// A couple of seconds of clock skew between nodes reads as now.
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60 {
		return fmt.Sprintf("%ds", seconds)
	} else if minutes := int(d.Minutes()); minutes < 60 {
		return fmt.Sprintf("%dm", minutes)
	} else if hours := int(d.Hours()); hours < 24 {
		return fmt.Sprintf("%dh", hours)
	} else if hours < 24*365 {
		return fmt.Sprintf("%dd", hours/24)
	}
	return fmt.Sprintf("%dy", int(d.Hours()/24/365))
}

// age is how long before the report's time t was; empty when either is
// unknown.
func age(now, t time.Time) string {
	if now.IsZero() || t.IsZero() {
		return ""
	}
	return shortDuration(now.Sub(t))
}
