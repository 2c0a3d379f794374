package paste

import (
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// subFields groups lines under a title into fields: the lines at the
// smallest indentation that are "Key:" lines start one each.
func subFields(body []line) []field {
	min := -1
	for _, l := range body {
		if l.text != "" && (min < 0 || l.indent < min) {
			min = l.indent
		}
	}
	var out []field
	for _, l := range body {
		if l.text == "" {
			continue
		}
		if l.indent == min && l.key != "" {
			out = append(out, field{key: l.key, val: l.val, at: l})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].body = append(out[len(out)-1].body, l)
		}
	}
	return out
}

// labelsOf reads describe's multi-line "k=v" list (Labels, Selector,
// Node-Selectors): the first on the title's line, one a line after.
func labelsOf(f field) map[string]string {
	vals := []string{f.val}
	for _, l := range f.body {
		vals = append(vals, l.text)
	}
	var out map[string]string
	for _, v := range vals {
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || k == "" || none(kv) {
				continue
			}
			if out == nil {
				out = map[string]string{}
			}
			out[k] = val
		}
	}
	return out
}

// annotationsOf reads describe's annotations: "key: value" a line (and
// "key=value" before 1.8). Long values kubectl shortened end in "...";
// they are kept as printed.
func annotationsOf(f field) map[string]string {
	var out map[string]string
	add := func(s string) {
		k, v, ok := strings.Cut(s, ": ")
		if !ok {
			k, v, ok = strings.Cut(s, "=")
		}
		if !ok || none(s) || strings.ContainsAny(k, " {\"") {
			return
		}
		if out == nil {
			out = map[string]string{}
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	add(f.val)
	for _, l := range f.body {
		add(l.text)
	}
	return out
}

// tolerationRe is one of describe's tolerations:
// "key=value:Effect op=Exists for 300s".
var tolerationRe = regexp.MustCompile(`^([^=:\s]*)(?:=([^:\s]*))?(?::(\w+))?(?:\s*op=Exists)?(?: for (\d+)s)?$`)

func tolerationsOf(f field) []corev1.Toleration {
	vals := []string{f.val}
	for _, l := range f.body {
		vals = append(vals, l.text)
	}
	var out []corev1.Toleration
	for _, v := range vals {
		v = strings.TrimSpace(v)
		m := tolerationRe.FindStringSubmatch(v)
		if m == nil || none(v) {
			continue
		}
		t := corev1.Toleration{Key: m[1], Value: m[2], Effect: corev1.TaintEffect(m[3])}
		if strings.Contains(v, "op=Exists") {
			t.Operator = corev1.TolerationOpExists
		} else if t.Key != "" {
			t.Operator = corev1.TolerationOpEqual
		}
		if m[4] != "" {
			n, _ := strconv.ParseInt(m[4], 10, 64)
			t.TolerationSeconds = &n
		}
		out = append(out, t)
	}
	return out
}

// portRe is one port of describe's Port(s) line: "8080/TCP" or
// "8080/TCP (http)".
var portRe = regexp.MustCompile(`^(\d+)/(\w+)(?: \(([^)]+)\))?$`)

func portsOf(v string) []corev1.ContainerPort {
	var out []corev1.ContainerPort
	for _, p := range strings.Split(v, ",") {
		m := portRe.FindStringSubmatch(strings.TrimSpace(p))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		out = append(out, corev1.ContainerPort{ContainerPort: int32(n), Protocol: corev1.Protocol(m[2]), Name: m[3]})
	}
	return out
}

// resourcesOf reads a Limits or Requests list ("cpu:  100m").
func resourcesOf(f field) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, l := range f.body {
		if l.key == "" {
			continue
		}
		if q, err := resource.ParseQuantity(l.val); err == nil {
			out[corev1.ResourceName(l.key)] = q
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// probeRe is describe's probe line (DescribeProbe): the handler, then
// delay, timeout and period, then thresholds as "successThreshold=1
// failureThreshold=3" (since 1.30) or "#success=1 #failure=3".
var probeRe = regexp.MustCompile(`^(http-get|tcp-socket|exec|grpc|unknown)\s*(.*?)\s*delay=(\d+)s timeout=(\d+)s period=(\d+)s (?:#success|successThreshold)=(\d+) (?:#failure|failureThreshold)=(\d+)`)

func probeOf(v string) *corev1.Probe {
	m := probeRe.FindStringSubmatch(v)
	if m == nil {
		return nil
	}
	num := func(s string) int32 { n, _ := strconv.Atoi(s); return int32(n) }
	p := &corev1.Probe{InitialDelaySeconds: num(m[3]), TimeoutSeconds: num(m[4]), PeriodSeconds: num(m[5]), SuccessThreshold: num(m[6]), FailureThreshold: num(m[7])}
	switch m[1] {
	case "http-get":
		p.HTTPGet = httpGetOf(m[2])
	case "tcp-socket":
		_, port, _ := strings.Cut(strings.TrimSpace(m[2]), ":")
		p.TCPSocket = &corev1.TCPSocketAction{Port: intstr.Parse(port)}
	case "exec":
		p.Exec = &corev1.ExecAction{Command: strings.Fields(strings.Trim(m[2], "[]"))}
	case "grpc":
		p.GRPC = &corev1.GRPCAction{}
	}
	return p
}

// httpGetOf reads "http://:8080/healthz".
func httpGetOf(u string) *corev1.HTTPGetAction {
	u = strings.TrimSpace(u)
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return &corev1.HTTPGetAction{}
	}
	hostport, path, _ := strings.Cut(rest, "/")
	host, port, _ := strings.Cut(hostport, ":")
	a := &corev1.HTTPGetAction{Host: host, Path: "/" + path, Port: intstr.Parse(port)}
	if strings.EqualFold(scheme, "https") {
		a.Scheme = corev1.URISchemeHTTPS
	} else {
		a.Scheme = corev1.URISchemeHTTP
	}
	return a
}

// envRe reads an environment variable describe resolved from a Secret or
// a ConfigMap key.
var (
	envSecretRe    = regexp.MustCompile(`^<set to the key '([^']*)' in secret '([^']*)'>(?:\s+Optional: (true|false))?`)
	envConfigMapRe = regexp.MustCompile(`^<set to the key '([^']*)' of config map '([^']*)'>(?:\s+Optional: (true|false))?`)
	envFieldRe     = regexp.MustCompile(`^(.*?)\s*\(([a-z0-9/]+):([^)]+)\)$`)
)

func envOf(f field) []corev1.EnvVar {
	var out []corev1.EnvVar
	for _, l := range f.body {
		if l.key == "" || strings.ContainsAny(l.key, " ()") {
			if len(out) > 0 && l.key == "" {
				// A value on several lines.
				out[len(out)-1].Value += "\n" + l.text
			}
			continue
		}
		e := corev1.EnvVar{Name: l.key}
		opt := func(s string) *bool { b := s == "true"; return &b }
		if m := envSecretRe.FindStringSubmatch(l.val); m != nil {
			e.ValueFrom = &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: m[2]}, Key: m[1], Optional: opt(m[3])}}
		} else if m := envConfigMapRe.FindStringSubmatch(l.val); m != nil {
			e.ValueFrom = &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: m[2]}, Key: m[1], Optional: opt(m[3])}}
		} else if m := envFieldRe.FindStringSubmatch(l.val); m != nil && strings.HasPrefix(m[2], "v1") {
			e.ValueFrom = &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: m[2], FieldPath: m[3]}}
		} else {
			e.Value = l.val
		}
		out = append(out, e)
	}
	return out
}

// envFromRe is a line of "Environment Variables from:": "name  ConfigMap
// Optional: false", with a prefix sometimes.
var envFromRe = regexp.MustCompile(`^(\S+)\s+(ConfigMap|Secret)(?: with prefix '([^']*)')?(?:\s+Optional: (true|false))?$`)

func envFromOf(f field) []corev1.EnvFromSource {
	var out []corev1.EnvFromSource
	for _, l := range f.body {
		m := envFromRe.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		optional := m[4] == "true"
		ref := corev1.LocalObjectReference{Name: m[1]}
		s := corev1.EnvFromSource{Prefix: m[3]}
		if m[2] == "ConfigMap" {
			s.ConfigMapRef = &corev1.ConfigMapEnvSource{LocalObjectReference: ref, Optional: &optional}
		} else {
			s.SecretRef = &corev1.SecretEnvSource{LocalObjectReference: ref, Optional: &optional}
		}
		out = append(out, s)
	}
	return out
}

// mountRe is a line of Mounts: "/data from data (rw,path="sub")".
var mountRe = regexp.MustCompile(`^(\S+) from (\S+) \((ro|rw)(?:,path="([^"]*)")?\)$`)

func mountsOf(f field) []corev1.VolumeMount {
	var out []corev1.VolumeMount
	for _, l := range f.body {
		if m := mountRe.FindStringSubmatch(l.text); m != nil {
			out = append(out, corev1.VolumeMount{MountPath: m[1], Name: m[2], ReadOnly: m[3] == "ro", SubPath: m[4]})
		}
	}
	return out
}

// linesOf is a list printed one item a line (Command, Args).
func linesOf(f field) []string {
	var out []string
	if f.val != "" {
		out = append(out, f.val)
	}
	for _, l := range f.body {
		out = append(out, l.text)
	}
	return out
}
