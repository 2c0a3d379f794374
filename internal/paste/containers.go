package paste

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// containersOf reads a Containers or Init Containers section: each
// container's spec, and its status when describe printed one (a pod's;
// a template's has none).
func (p *parser) containersOf(f field) ([]corev1.Container, []corev1.ContainerStatus) {
	var (
		specs    []corev1.Container
		statuses []corev1.ContainerStatus
	)
	for _, cf := range subFields(f.body) {
		if cf.val != "" {
			continue // not a container's name line
		}
		c := corev1.Container{Name: cf.key}
		st := corev1.ContainerStatus{Name: cf.key}
		hasStatus := false
		for _, k := range subFields(cf.body) {
			switch k.key {
			case "Container ID":
				st.ContainerID, hasStatus = k.val, true
			case "Image":
				c.Image, st.Image = k.val, k.val
			case "Image ID":
				st.ImageID, hasStatus = k.val, true
			case "Port", "Ports":
				c.Ports = portsOf(k.val)
			case "Command":
				c.Command = linesOf(k)
			case "Args":
				c.Args = linesOf(k)
			case "State":
				st.State, hasStatus = p.stateOf(k), true
			case "Last State", "Last Termination State":
				st.LastTerminationState, hasStatus = p.stateOf(k), true
			case "Ready":
				st.Ready, hasStatus = strings.EqualFold(k.val, "true"), true
			case "Restart Count":
				n, _ := strconv.Atoi(k.val)
				st.RestartCount, hasStatus = int32(n), true
			case "Started":
				b := strings.EqualFold(k.val, "true")
				st.Started = &b
			case "Limits":
				c.Resources.Limits = resourcesOf(k)
			case "Requests":
				c.Resources.Requests = resourcesOf(k)
			case "Liveness":
				c.LivenessProbe = probeOf(k.val)
			case "Readiness":
				c.ReadinessProbe = probeOf(k.val)
			case "Startup":
				c.StartupProbe = probeOf(k.val)
			case "Environment":
				c.Env = envOf(k)
			case "Environment Variables from":
				c.EnvFrom = envFromOf(k)
			case "Mounts":
				c.VolumeMounts = mountsOf(k)
			}
		}
		specs = append(specs, c)
		if hasStatus {
			statuses = append(statuses, st)
		}
	}
	return specs, statuses
}

// stateOf reads a State or Last State: its word (Waiting, Running,
// Terminated; "Waiting (Reason)" in some consoles' copies) and the lines
// under it.
func (p *parser) stateOf(f field) corev1.ContainerState {
	word, reason, _ := strings.Cut(f.val, " ")
	reason = strings.Trim(strings.TrimSpace(reason), "()")
	sub := map[string]string{}
	for _, k := range subFields(f.body) {
		v := k.val
		for _, l := range k.body {
			v += "\n" + l.text // a message on several lines
		}
		sub[k.key] = v
	}
	if reason == "" {
		reason = sub["Reason"]
	}
	switch word {
	case "Running":
		r := &corev1.ContainerStateRunning{}
		r.StartedAt = p.absolute(sub["Started"])
		return corev1.ContainerState{Running: r}
	case "Terminated":
		code, _ := strconv.Atoi(sub["Exit Code"])
		sig, _ := strconv.Atoi(sub["Signal"])
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Reason: reason, Message: sub["Message"], ExitCode: int32(code), Signal: int32(sig),
			StartedAt: p.absolute(sub["Started"]), FinishedAt: p.absolute(sub["Finished"]),
		}}
	case "Waiting", "":
		return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: sub["Message"]}}
	}
	return corev1.ContainerState{}
}

// absolute reads a time describe printed in full and counts it towards
// the paste's newest.
func (p *parser) absolute(s string) metav1.Time {
	t, ok := parseTime(s)
	if !ok {
		return metav1.Time{}
	}
	p.abs = append(p.abs, t)
	return metav1.NewTime(t)
}

// volumesOf reads a Volumes section, each volume's source as far as
// describe prints it.
func volumesOf(f field) []corev1.Volume {
	var out []corev1.Volume
	for _, vf := range subFields(f.body) {
		if vf.val != "" {
			continue
		}
		v := corev1.Volume{Name: vf.key}
		sub := map[string]string{}
		var projected []corev1.VolumeProjection
		for _, k := range subFields(vf.body) {
			sub[k.key] = k.val
			switch k.key {
			case "SecretName":
				projected = append(projected, corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: k.val}}})
			case "ConfigMapName":
				projected = append(projected, corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: k.val}}})
			}
		}
		optional := sub["Optional"] == "true"
		typ, _, _ := strings.Cut(sub["Type"], " ")
		switch typ {
		case "Secret":
			v.Secret = &corev1.SecretVolumeSource{SecretName: sub["SecretName"], Optional: &optional}
		case "ConfigMap":
			v.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: sub["Name"]}, Optional: &optional}
		case "PersistentVolumeClaim":
			v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: sub["ClaimName"], ReadOnly: sub["ReadOnly"] == "true"}
		case "EmptyDir":
			v.EmptyDir = &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMedium(sub["Medium"])}
		case "HostPath":
			v.HostPath = &corev1.HostPathVolumeSource{Path: sub["Path"]}
		case "Projected":
			v.Projected = &corev1.ProjectedVolumeSource{Sources: projected}
		case "CSI":
			v.CSI = &corev1.CSIVolumeSource{Driver: sub["Driver"]}
		case "NFS":
			v.NFS = &corev1.NFSVolumeSource{Server: sub["Server"], Path: sub["Path"]}
		}
		out = append(out, v)
	}
	return out
}
