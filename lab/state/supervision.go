package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Supervisor is the name of the lab's supervisor process in pids/ and logs/.
const Supervisor = "supervisor"

// Audit names the API server's audit log (`kubectl chain lab logs audit`):
// what people and their tools asked of the lab.
const Audit = "audit"

// Supervision is supervisor.json: what the lab's supervisor knows of each
// component it runs. The supervisor is its only writer and replaces it whole
// on every start, exit and decision; `up` and `status` read it.
type Supervision struct {
	Components []Run `json:"components"`
}

// Run is one component's history under the supervisor.
type Run struct {
	Component string `json:"component"`
	// Pid is the running process, 0 while it is dead.
	Pid int `json:"pid,omitempty"`
	// Starts counts the processes started; restarts are one less.
	Starts  int       `json:"starts"`
	Started time.Time `json:"started,omitzero"`
	// LastExit is how the previous process ended.
	LastExit *Exit `json:"lastExit,omitempty"`
	// RestartAt is when a dead component starts again; zero while it runs
	// or once the supervisor gave up.
	RestartAt time.Time `json:"restartAt,omitzero"`
	// GaveUp says why the supervisor stopped restarting it.
	GaveUp string `json:"gaveUp,omitempty"`
}

// Restarts is how many times the component was started again.
func (r Run) Restarts() int { return max(r.Starts-1, 0) }

// Exit is how one process of a component ended.
type Exit struct {
	At time.Time `json:"at"`
	// Ran is how long it had run.
	Ran time.Duration `json:"ran"`
	// Code is the exit status, -1 when a signal killed it.
	Code int `json:"code"`
	// Signal names the signal that killed it ("SIGKILL").
	Signal string `json:"signal,omitempty"`
	// LogTail is the end of its log as it died: the next process appends
	// to the same log.
	LogTail []string `json:"logTail,omitempty"`
}

// String is "exit code 1" or "killed by SIGKILL".
func (e Exit) String() string {
	if e.Signal != "" {
		return "killed by " + e.Signal
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

// Find returns the run of component, or a zero Run.
func (s Supervision) Find(component string) Run {
	for _, r := range s.Components {
		if r.Component == component {
			return r
		}
	}
	return Run{Component: component}
}

// WriteSupervision replaces supervisor.json atomically, so a reader never
// sees half of it.
func WriteSupervision(l Layout, s Supervision) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(l.Supervision()), err)
	}
	tmp := l.Supervision() + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, l.Supervision())
}

// ReadSupervision reads supervisor.json; a lab without one (the supervisor
// has not written it yet) has an empty Supervision and no error.
func ReadSupervision(l Layout) (Supervision, error) {
	var s Supervision
	b, err := os.ReadFile(l.Supervision())
	if os.IsNotExist(err) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("reading %s: %w", l.Supervision(), err)
	}
	return s, nil
}
