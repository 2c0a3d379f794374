package kubelet

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// ensureImage is the kubelet's EnsureImageExists for an image that can be
// pulled: apply the pull policy to what the node holds, and either report the
// image present or pull it through the node's serialized puller. It returns
// the image and imageID the runtime reports for the container.
func (a *nodeAgent) ensureImage(ctx context.Context, pod *corev1.Pod, c *corev1.Container, b Behaviour, ref *corev1.ObjectReference) (string, string) {
	image := withDefaultTag(c.Image)
	stored, present := a.images.get(image)
	if !pullNeeded(c.ImagePullPolicy, present) {
		if !present {
			// Never with an image the node lacks: phase 1 treats it as
			// side-loaded (kind load); ErrImageNeverPull belongs to the
			// failure behaviours.
			out := b.Pull(pod, c, image)
			stored = storedImage{digest: out.Digest, size: out.Size}
			a.images.put(image, stored)
		}
		emit(a.events, ref, reasonPulled, fmt.Sprintf(msgAlreadyPresent, c.Image))
		return image, imageRef(image, stored.digest)
	}
	emit(a.events, ref, reasonPulling, fmt.Sprintf(msgPulling, image))
	start := a.clock.Now()
	a.images.pull.Lock()
	out := b.Pull(pod, c, image)
	if out.Duration > 0 {
		select {
		case <-a.clock.After(out.Duration):
		case <-ctx.Done():
		}
	}
	a.images.pull.Unlock()
	a.images.put(image, storedImage{digest: out.Digest, size: out.Size})
	emit(a.events, ref, reasonPulled, pulledMessage(image, out.Duration, a.clock.Since(start), out.Size))
	return image, imageRef(image, out.Digest)
}
