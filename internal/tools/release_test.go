package tools

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

// root is the repository, where goreleaser runs.
var root = filepath.Join("..", "..")

// tool builds one of this module's tools into dir.
func tool(t *testing.T, dir, pkg, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// TestRelease checks .goreleaser.yaml with goreleaser, builds a snapshot
// release with it, and checks what a release would publish: the archives
// of both binaries, their checksums, the Homebrew cask, and the krew
// manifest (.krew.yaml rendered as krew's release automation renders it),
// which krew's own validation then installs on every platform it names
// (validate-krew-manifest, as the krew index's CI runs it). The snapshot
// is built for this machine's platform only, unless
// KUBECTL_CHAIN_RELEASE_ALL=1 asks for every one, and of kubectl-chain
// only (the kubectl-chain-lab archives compile Kubernetes, once per
// platform: `goreleaser check` validates their configuration).
func TestRelease(t *testing.T) {
	bin := t.TempDir()
	goreleaser := tool(t, bin, "github.com/goreleaser/goreleaser/v2", "goreleaser")
	validate := tool(t, bin, "sigs.k8s.io/krew/cmd/validate-krew-manifest", "validate-krew-manifest")
	tool(t, bin, "sigs.k8s.io/krew/cmd/krew", "kubectl-krew")

	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, b)
		}
		return string(b)
	}
	run(goreleaser, "check", "-f", ".goreleaser.yaml")

	// The snapshot's configuration: the real one, into a dist of the
	// test's, for this platform unless all are asked for.
	var cfg map[string]any
	raw, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	checkImagePublisher(t, cfg)
	dist := t.TempDir()
	cfg["dist"] = dist
	all := os.Getenv("KUBECTL_CHAIN_RELEASE_ALL") == "1"
	if !all {
		// kubectl-chain for this platform: the lab's archives would
		// compile Kubernetes once more (10 minutes on 2 cores).
		cfg["builds"] = only(cfg["builds"], "id", "kubectl-chain")
		cfg["archives"] = only(cfg["archives"], "id", "kubectl-chain")
		for _, b := range cfg["builds"].([]any) {
			b.(map[string]any)["goos"] = []string{runtime.GOOS}
			b.(map[string]any)["goarch"] = []string{runtime.GOARCH}
		}
		cfg["homebrew_casks"] = only(cfg["homebrew_casks"], "name", "kubectl-chain")
	}
	out, _ := yaml.Marshal(cfg)
	snapCfg := filepath.Join(t.TempDir(), "goreleaser.yaml")
	if err := os.WriteFile(snapCfg, out, 0o644); err != nil {
		t.Fatal(err)
	}
	run(goreleaser, "release", "--snapshot", "--clean", "--skip=publish,announce,sign", "--parallelism", "2", "-f", snapCfg)

	// The archives and their checksums.
	sums := map[string]string{}
	f, err := os.Open(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
			sums[name] = sum
		}
	}
	f.Close()
	archives, _ := filepath.Glob(filepath.Join(dist, "kubectl-chain*_*"))
	var names []string
	for _, a := range archives {
		if st, err := os.Stat(a); err != nil || st.IsDir() {
			continue
		}
		name := filepath.Base(a)
		names = append(names, name)
		if sums[name] != sha256Of(t, a) {
			t.Errorf("checksums.txt has %q for %s, which hashes to %s", sums[name], name, sha256Of(t, a))
		}
	}
	tag := tagOf(t, names)
	for _, want := range wantArchives(tag, all) {
		if sums[want] == "" {
			t.Errorf("no archive %s in the snapshot (it has %v)", want, names)
		}
	}

	// Homebrew: a cask per binary.
	for _, name := range []string{"kubectl-chain", "kubectl-chain-lab"} {
		if name == "kubectl-chain-lab" && !all {
			continue
		}
		cask, err := os.ReadFile(filepath.Join(dist, "homebrew", "Casks", name+".rb"))
		if err != nil {
			t.Errorf("no Homebrew cask for %s: %v", name, err)
		} else if !strings.Contains(string(cask), `binary "`+name+`"`) {
			t.Errorf("the cask of %s does not install it:\n%s", name, cask)
		}
	}

	// krew: render .krew.yaml for the snapshot, its archives served from
	// here, keep the platforms built, and let krew install each.
	srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
	defer srv.Close()
	manifest := renderKrew(t, tag, srv.URL, sums)
	path := filepath.Join(t.TempDir(), "chain.yaml")
	if err := os.WriteFile(path, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot %s: %v; validate-krew-manifest: %s", tag, names, lastLine(run(validate, "-manifest", path)))
}

// wantArchives are the archives a release publishes (this platform's
// only, unless all).
func wantArchives(tag string, all bool) []string {
	var out []string
	for _, p := range [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"}} {
		if !all && (p[0] != runtime.GOOS || p[1] != runtime.GOARCH) {
			continue
		}
		ext := ".tar.gz"
		if p[0] == "windows" {
			ext = ".zip"
		}
		out = append(out, fmt.Sprintf("kubectl-chain_%s_%s_%s%s", tag, p[0], p[1], ext))
		if p[0] == "linux" && all {
			out = append(out, fmt.Sprintf("kubectl-chain-lab_%s_%s_%s.tar.gz", tag, p[0], p[1]))
		}
	}
	return out
}

var archiveName = regexp.MustCompile(`^kubectl-chain_(.+)_(linux|darwin|windows)_(amd64|arm64)\.(tar\.gz|zip)$`)

// tagOf is the snapshot's tag, as the archives' names carry it.
func tagOf(t *testing.T, names []string) string {
	for _, n := range names {
		if m := archiveName.FindStringSubmatch(n); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no kubectl-chain archive among %v", names)
	return ""
}

// only keeps the entries of a goreleaser list whose key is value.
func only(list any, key, value string) []any {
	var out []any
	for _, e := range list.([]any) {
		if e.(map[string]any)[key] == value {
			out = append(out, e)
		}
	}
	return out
}

// renderKrew renders .krew.yaml as krew-release-bot does ({{ .TagName }},
// and addURIAndSha's uri and sha256 lines), with the release's download
// address replaced by base, and keeps the platforms whose archive was
// built.
func renderKrew(t *testing.T, tag, base string, sums map[string]string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, ".krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const release = "https://github.com/kubectl-chain/kubectl-chain/releases/download/"
	funcs := template.FuncMap{"addURIAndSha": func(url, tag string) string {
		url = strings.ReplaceAll(url, "{{ .TagName }}", tag)
		name := url[strings.LastIndex(url, "/")+1:]
		if !strings.HasPrefix(url, release+tag+"/") {
			t.Errorf("%s is not an asset of the release %s", url, tag)
		}
		return fmt.Sprintf("uri: %s/%s\n    sha256: %s", base, name, sums[name])
	}}
	// {{ .TagName }} inside addURIAndSha's quoted argument is text to
	// text/template; addURIAndSha replaces it, as the bot's does.
	tpl, err := template.New("krew").Funcs(funcs).Parse(string(raw))
	if err != nil {
		t.Fatalf(".krew.yaml: %v", err)
	}
	var b strings.Builder
	if err := tpl.Execute(&b, map[string]string{"TagName": tag}); err != nil {
		t.Fatalf(".krew.yaml: %v", err)
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(b.String()), &m); err != nil {
		t.Fatalf("rendered .krew.yaml: %v\n%s", err, b.String())
	}
	spec := m["spec"].(map[string]any)
	if d := spec["shortDescription"].(string); len(d) > 50 {
		t.Errorf("shortDescription is %d characters, krew's index takes 50: %q", len(d), d)
	}
	var kept []any
	for _, p := range spec["platforms"].([]any) {
		if sum, _ := p.(map[string]any)["sha256"].(string); sum != "" {
			kept = append(kept, p)
		}
	}
	spec["platforms"] = kept
	out, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sha256Of(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// checkImagePublisher: the release pushes the serve image once, from
// serve-image: goreleaser runs a publisher per artifact it selects, and one
// whose ids name no build selects checksums.txt alone (artifact.ByID keeps
// checksums for every id, goreleaser v2.17 internal/artifact).
func checkImagePublisher(t *testing.T, cfg map[string]any) {
	t.Helper()
	builds := map[any]bool{}
	for _, b := range cfg["builds"].([]any) {
		builds[b.(map[string]any)["id"]] = true
	}
	for _, p := range only(cfg["publishers"], "name", "serve-image") {
		p := p.(map[string]any)
		ids, _ := p["ids"].([]any)
		cmd, _ := p["cmd"].(string)
		if len(ids) == 0 || builds[ids[0]] || p["checksum"] != true || p["dir"] != "internal/tools" ||
			!strings.HasPrefix(cmd, "go run ./cmd/serve-image ") || !strings.Contains(cmd, " -push ") {
			t.Errorf("the serve-image publisher would not run serve-image -push once per release: %v", p)
		}
		return
	}
	t.Error("no serve-image publisher in .goreleaser.yaml")
}
