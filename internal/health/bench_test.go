package health

import "testing"

// BenchmarkHealth measures one built-in check on a real object (cert-manager
// Certificate, healthy): a fresh sandboxed VM, the object converted, the
// compiled script run, the reply read.
func BenchmarkHealth(b *testing.B) {
	f := fixture(b, "cert-manager.io/Certificate/testdata/healthy_issued.yaml")
	obj := decodeFixture(b, f)
	cat := Builtin()
	if _, _, err := cat.Check(obj); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, ok, err := cat.Check(obj)
		if !ok || err != nil || res.Status != Healthy {
			b.Fatalf("%+v %v %v", res, ok, err)
		}
	}
}

// BenchmarkLookupMiss measures what a kind without a check costs: an exact
// probe of the embedded folders and the wildcard folders tried.
func BenchmarkLookupMiss(b *testing.B) {
	cat := Builtin()
	cat.Has("warm", "Up")
	for b.Loop() {
		if cat.Has("apps", "Deployment") {
			b.Fatal("apps/Deployment has no Lua check in Argo CD")
		}
	}
}
