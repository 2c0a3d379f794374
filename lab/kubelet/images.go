package kubelet

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// withDefaultTag appends ":latest" to an image without tag or digest, as the
// kubelet's applyDefaultImageTag does (pkg/kubelet/images/image_manager.go),
// without qualifying short names with a registry.
func withDefaultTag(image string) string {
	if strings.Contains(image, "@") {
		return image
	}
	if strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") {
		return image
	}
	return image + ":latest"
}

// repository is an image reference without its tag or digest.
func repository(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		return image[:i]
	}
	slash := strings.LastIndex(image, "/")
	if i := strings.LastIndex(image, ":"); i > slash {
		return image[:i]
	}
	return image
}

// digestOf is a stable sha256 digest for a kind of thing and its name.
func digestOf(kind, name string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + name))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// imageRef is what the runtime reports as a container's imageID.
func imageRef(image, digest string) string { return repository(image) + "@" + digest }

// pullNeeded applies the pull policy to what the node holds, as the
// kubelet's imagePullPrecheck does: Always pulls, Never never does,
// IfNotPresent pulls what is missing.
func pullNeeded(policy corev1.PullPolicy, present bool) bool {
	switch policy {
	case corev1.PullAlways:
		return true
	case corev1.PullNever:
		return false
	default:
		return !present
	}
}

// imageStore is the images one node holds, and the lock that serializes its
// pulls (the kubelet's default serializeImagePulls: true).
type imageStore struct {
	pull   sync.Mutex
	mu     sync.Mutex
	images map[string]storedImage
}

type storedImage struct {
	digest string
	size   int64
}

func newImageStore() *imageStore { return &imageStore{images: map[string]storedImage{}} }

func (s *imageStore) get(image string) (storedImage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	img, ok := s.images[image]
	return img, ok
}

func (s *imageStore) put(image string, img storedImage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.images[image] = img
}

// nodeImages is node.status.images: largest first, at most 50, as the kubelet
// reports them.
func (s *imageStore) nodeImages() []corev1.ContainerImage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]corev1.ContainerImage, 0, len(s.images))
	for name, img := range s.images {
		out = append(out, corev1.ContainerImage{Names: []string{imageRef(name, img.digest), name}, SizeBytes: img.size})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].SizeBytes != out[j].SizeBytes {
			return out[i].SizeBytes > out[j].SizeBytes
		}
		return out[i].Names[1] < out[j].Names[1]
	})
	if len(out) > 50 {
		out = out[:50]
	}
	return out
}
