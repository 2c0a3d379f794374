package lab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A start that failed: which component it blames and why, and the start
// again when a component found its port taken.

// portTakenWords say why a start failed when a component's port was taken
// between the choice and its bind.
const portTakenWords = "a port the lab chose was taken by another process meanwhile"

// portAttempts is how many times up chooses ports when a component finds
// its port taken as it starts.
const portAttempts = 3

// clearForRetry removes what a failed start left in the lab's directory,
// all but the lock that up holds.
func (l Lab) clearForRetry() error {
	entries, err := os.ReadDir(l.Layout.Dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if p := filepath.Join(l.Layout.Dir, e.Name()); p != l.Layout.Lock() {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// failure names the component a failed start blames and the last lines of
// its log; "" when none is known.
func (l Lab) failure(err error) (component string, lines []string) {
	var ce *componentExitError
	if errors.As(err, &ce) {
		component = ce.component
	} else {
		for _, p := range l.Processes() {
			if !p.Alive {
				component = p.Component
				break
			}
		}
	}
	if component == "" {
		return "", nil
	}
	lines, _ = lastLines(l.Layout.Log(component), 15)
	return component, lines
}

// portTakenLine is the log line that says a component's port was taken;
// "" when none does.
func portTakenLine(lines []string) string {
	for _, line := range lines {
		if strings.Contains(line, "address already in use") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// explain turns a failed start into a message that names the component and
// shows its last log lines.
func (l Lab) explain(err error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "lab %q did not become healthy: %v", l.Name, err)
	if component, lines := l.failure(err); component != "" {
		fmt.Fprintf(&b, "\nlast lines of %s's log (%s):", component, l.Layout.Log(component))
		for _, line := range lines {
			fmt.Fprintf(&b, "\n  %s", line)
		}
		if portTakenLine(lines) != "" {
			fmt.Fprintf(&b, "\n%s: run `up` again to choose new ports", portTakenWords)
		}
	}
	fmt.Fprintf(&b, "\nthe processes are stopped; the logs stay in %s (`%s`, `%s`); the next `up` or `down` removes them",
		l.Layout.Logs(), l.Command("status"), l.Command("logs COMPONENT"))
	return errors.New(b.String())
}
