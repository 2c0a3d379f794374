package kubelet

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// ensureImage is the kubelet's EnsureImageExists (pkg/kubelet/images/
// image_manager.go) followed by startContainer's "Error: %v" event when it
// fails: check the reference, apply the pull policy to what the node holds,
// honour the image back-off, and pull through the node's serialized puller.
// It returns the image and imageID the runtime reports, or false with the
// container left waiting with the kubelet's reason and message.
func (w *podWorker) ensureImage(ctx context.Context, pod *corev1.Pod, c *corev1.Container, cr *containerRecord, ref *corev1.ObjectReference) (string, string, bool) {
	a := w.a
	image, err := applyDefaultImageTag(c.Image)
	if err != nil {
		msg := fmt.Sprintf(msgDefaultTag, c.Image, err)
		warn(a.events, ref, reasonInspectFailed, msg)
		return w.pullFailed(cr, ref, reasonInvalidImageName, msg)
	}
	stored, present := a.images.get(image)
	if !pullNeeded(c.ImagePullPolicy, present) {
		if !present {
			// pull policy Never and an image the node does not hold.
			msg := fmt.Sprintf(msgNeverPull, c.Image)
			warn(a.events, ref, reasonErrImageNeverPull, msg)
			return w.pullFailed(cr, ref, reasonErrImageNeverPull, msg)
		}
		emit(a.events, ref, reasonPulled, fmt.Sprintf(msgAlreadyPresent, c.Image))
		return image, imageRef(image, stored.digest), true
	}
	key := string(pod.UID) + "_" + image
	if w.imageBackOff.IsInBackOffSinceUpdate(key, a.clock.Now()) {
		msg := fmt.Sprintf(msgBackOffPull, image)
		emit(a.events, ref, reasonBackOff, msg)
		if cr.pullError != "" {
			msg = fmt.Sprintf(msgPrevPullError, msg, cr.pullError)
		}
		return w.pullFailed(cr, ref, reasonImagePullBackOff, msg)
	}
	emit(a.events, ref, reasonPulling, fmt.Sprintf(msgPulling, image))
	start := a.clock.Now()
	a.images.pull.Lock()
	out := w.behaviour.Pull(w.pullSecrets(ctx, pod), c, image)
	if out.Duration > 0 {
		select {
		case <-a.clock.After(out.Duration):
		case <-ctx.Done():
		}
	}
	a.images.pull.Unlock()
	if out.Err != "" {
		warn(a.events, ref, reasonFailed, fmt.Sprintf(msgFailedToPull, image, errors.New(out.Err)))
		w.imageBackOff.Next(key, a.clock.Now())
		cr.pullError = fmt.Sprintf(msgPrevPullError, reasonErrImagePull, out.Err)
		return w.pullFailed(cr, ref, reasonErrImagePull, out.Err)
	}
	a.images.put(image, storedImage{digest: out.Digest, size: out.Size})
	emit(a.events, ref, reasonPulled, pulledMessage(image, out.Duration, a.clock.Since(start), out.Size))
	return image, imageRef(image, out.Digest), true
}

// pullFailed records startContainer's event for a failed EnsureImageExists
// ("Error: " and the error's name) and leaves the container waiting.
func (w *podWorker) pullFailed(cr *containerRecord, ref *corev1.ObjectReference, reason, msg string) (string, string, bool) {
	warn(w.a.events, ref, reasonFailed, fmt.Sprintf(msgError, reason))
	cr.wait(reason, msg)
	return "", "", false
}
