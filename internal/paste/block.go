package paste

import (
	"regexp"
	"strings"
)

// field is one top-level "Key:  value" of a describe block and the lines
// under it (deeper, or a value's continuation).
type field struct {
	key, val string
	at       line
	body     []line
}

// block is one object's kubectl describe output.
type block struct {
	fields []field
	first  int // line number of Name:
	end    int // index after the last line read
}

func (b *block) get(key string) (field, bool) {
	for _, f := range b.fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// value is a top-level field's value, "" when absent or <none>.
func (b *block) value(keys ...string) string {
	for _, k := range keys {
		if f, ok := b.get(k); ok && !none(f.val) {
			return f.val
		}
	}
	return ""
}

// has says the block has one of the keys.
func (b *block) has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := b.get(k); ok {
			return true
		}
	}
	return false
}

// describeKeys are the keys that, soon after "Name:", say a describe block
// starts (a YAML or a log line may say "Name:" too).
var describeKeys = map[string]bool{
	"Namespace": true, "Image(s)": true, "Node": true, "Labels": true, "Selector": true,
	"CreationTimestamp": true, "Priority": true, "Annotations": true, "Roles": true,
	"Status": true, "StorageClass": true, "Type": true,
}

// isDescribeStart says lines[i] is the Name: line of a describe block.
func isDescribeStart(lines []line, i int) bool {
	l := lines[i]
	if l.key != "Name" || none(l.val) || strings.Contains(l.val, " ") {
		return false
	}
	for j := i + 1; j < len(lines) && j <= i+3; j++ {
		if describeKeys[lines[j].key] && lines[j].indent <= l.indent+1 {
			return true
		}
	}
	return false
}

// promptRe is a shell prompt or a command a user typed before kubectl's
// output, or a Markdown fence: the end of a block of output.
var promptRe = regexp.MustCompile("^(?:```|~~~|\\$ |# |> |[\\w@.:~/-]*[$#%>] +\\S|kubectl |oc |k )")

// isBoundary says the line ends a block of kubectl output.
func isBoundary(l line) bool {
	return promptRe.MatchString(l.text) || l.text == "..." || strings.HasPrefix(l.text, "[root@")
}

// readBlock reads the describe block starting at lines[start] (its Name:
// line): every line up to the next block, table, prompt or a blank line
// that leaves the block.
func readBlock(lines []line, start int) block {
	base := lines[start].indent
	b := block{first: lines[start].n}
	cur := -1
	inEvents := false
	i := start
	for ; i < len(lines); i++ {
		l := lines[i]
		if i > start && (isDescribeStart(lines, i) && l.indent <= base || isBoundary(l) || tableKind(l) != "") {
			break
		}
		if l.text == "" {
			k := i + 1
			for k < len(lines) && lines[k].text == "" {
				k++
			}
			if k >= len(lines) {
				break
			}
			next := lines[k]
			if next.indent <= base && !topKey(next) && bareTitle(next) == "" && !(inEvents && eventRowRe.MatchString(next.text)) || isDescribeStart(lines, k) {
				break
			}
			continue
		}
		if l.indent <= base && topKey(l) && !(inEvents && eventLike(l)) {
			b.fields = append(b.fields, field{key: l.key, val: l.val, at: l})
			cur = len(b.fields) - 1
			inEvents = l.key == "Events"
			continue
		}
		if t := bareTitle(l); l.indent <= base && t != "" && !inEvents {
			b.fields = append(b.fields, field{key: t, at: l})
			cur = len(b.fields) - 1
			continue
		}
		if cur >= 0 {
			b.fields[cur].body = append(b.fields[cur].body, l)
		}
	}
	b.end = i
	return b
}

// bareTitleRe are the titles describe prints without a colon: a
// ResourceQuota's table head, and the quota and limit range sections of
// a Namespace's (k8s.io/kubectl pkg/describe describeQuota,
// DescribeResourceQuotas, DescribeLimitRanges).
var bareTitleRe = regexp.MustCompile(`^(?:Resource Quotas|Resource Limits|No resource quota\.|No LimitRange resource\.|Resource\s+Used\s+Hard)$`)

// bareTitle is the title a line is, its blanks made single; "" for
// none.
func bareTitle(l line) string {
	if !bareTitleRe.MatchString(l.text) {
		return ""
	}
	return strings.Join(strings.Fields(l.text), " ")
}

// topKey says a line at the block's left edge is one of describe's
// titles: they are capitalised ("Controlled By", "QoS Class"); names
// (containers, volumes, annotations) are not.
func topKey(l line) bool {
	if l.key == "" {
		return false
	}
	c := l.key[0]
	return c >= 'A' && c <= 'Z'
}

// eventLike says a line in an Events section is a row or a wrapped part
// of one, never a title, even when its message reads "Key: value".
func eventLike(l line) bool {
	return eventRowRe.MatchString(l.text) || !describeTitles[l.key]
}

// describeTitles are describe's top-level titles that may follow Events
// (another object's describe glued on, a Deployment's OldReplicaSets in
// some releases).
var describeTitles = map[string]bool{"Name": true, "Namespace": true, "Events": true}
