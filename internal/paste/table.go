package paste

import (
	"regexp"
	"strings"
)

// table is a header kubectl printed: column names and where each starts.
type table struct {
	names  []string
	starts []int
}

// headerRe finds a header's cells: words in capitals (kubectl get) or
// capitalised (describe), separated by two blanks or more.
var headerCellRe = regexp.MustCompile(`\S+(?: \S+)*`)

// newTable reads a header line (tabs expanded).
func newTable(header string) table {
	var t table
	for _, loc := range headerCellRe.FindAllStringIndex(header, -1) {
		cell := header[loc[0]:loc[1]]
		// A single space parts two columns whose names are one word
		// each ("Type Status" in some pastes); kubectl's multi-word
		// names are kept whole.
		if words := strings.Fields(cell); len(words) > 1 && !multiWord[strings.ToUpper(cell)] {
			off := loc[0]
			for _, w := range words {
				i := strings.Index(header[off:], w) + off
				t.names = append(t.names, strings.ToUpper(w))
				t.starts = append(t.starts, i)
				off = i + len(w)
			}
			continue
		}
		t.names = append(t.names, strings.ToUpper(cell))
		t.starts = append(t.starts, loc[0])
	}
	return t
}

// multiWord are the column names kubectl writes with a space.
var multiWord = map[string]bool{
	"LAST SEEN": true, "FIRST SEEN": true, "NOMINATED NODE": true, "READINESS GATES": true,
	"UP-TO-DATE": true, "RESTART COUNT": true, "ACCESS MODES": true,
}

func (t table) col(name string) int {
	for i, n := range t.names {
		if n == name {
			return i
		}
	}
	return -1
}

// cell is the cell of column n in a row's cells, "" when the table has
// no such column or the row is short.
func (t table) cell(cells []string, n string) string {
	if i := t.col(n); i >= 0 && i < len(cells) {
		return cells[i]
	}
	return ""
}

// cells cuts a row by the header's column starts; ok is false when the
// row is not aligned with them (a paste that lost its spacing), and
// the caller splits on blanks instead.
func (t table) cells(row string) ([]string, bool) {
	if len(t.starts) == 0 {
		return nil, false
	}
	out := make([]string, len(t.starts))
	for k, s := range t.starts {
		if s > len(row) {
			break
		}
		if k > 0 && s > 0 && row[s-1] != ' ' {
			return nil, false
		}
		end := len(row)
		if k+1 < len(t.starts) && t.starts[k+1] < end {
			end = t.starts[k+1]
		}
		out[k] = strings.TrimSpace(row[s:end])
	}
	return out, true
}

// expandTabs replaces tabs by the blanks a terminal shows.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// tableKind says which kubectl get table a header line starts: "pods",
// "events", "deployments", "replicasets", "nodes", or "".
func tableKind(l line) string {
	t := " " + strings.Join(strings.Fields(l.text), " ") + " "
	has := func(words ...string) bool {
		for _, w := range words {
			if !strings.Contains(t, " "+w+" ") {
				return false
			}
		}
		return true
	}
	switch {
	case !strings.HasPrefix(t, " NAME ") && !strings.HasPrefix(t, " NAMESPACE ") && !strings.HasPrefix(t, " LAST") && !strings.HasPrefix(t, " FIRST"):
		return ""
	case has("NODE SELECTOR") || has("COMPLETIONS"):
		return "" // DaemonSets, Jobs: not read yet
	case has("TYPE", "REASON", "OBJECT", "MESSAGE") || has("REASON", "KIND", "MESSAGE") && (has("COUNT") || has("SUBOBJECT")):
		return "events"
	case has("NAME", "READY", "STATUS", "RESTARTS"):
		return "pods"
	case has("NAME", "READY", "UP-TO-DATE", "AVAILABLE") || has("NAME", "DESIRED", "CURRENT", "UP-TO-DATE", "AVAILABLE"):
		return "deployments"
	case has("NAME", "DESIRED", "CURRENT", "READY") || has("NAME", "DESIRED", "CURRENT", "AGE"):
		return "replicasets"
	case has("NAME", "STATUS", "VOLUME", "CAPACITY"):
		return "persistentvolumeclaims"
	case has("NAME", "CONTROLLER", "PARAMETERS", "AGE"):
		return "ingressclasses"
	case has("NAME", "STATUS", "ROLES", "AGE", "VERSION") || has("NAME", "STATUS", "AGE", "VERSION"):
		return "nodes"
	case has("NAME", "AGE") && len(strings.Fields(t)) >= 3 && strings.ToUpper(t) == t:
		return "other"
	}
	return ""
}
