package attest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/identity"
)

var alice = identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "a1", Name: "alice", Groups: []string{"tenant:acme"}}

type approval struct {
	PlanHash string `json:"planHash"`
	Note     string `json:"note,omitempty"`
}

func ring(t *testing.T) *Keyring {
	t.Helper()
	key, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	k, err := Parse("test", key)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSignVerify(t *testing.T) {
	k := ring(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	arg := approval{PlanHash: "abc"}
	a, err := k.Sign(alice, "instance/acme/web", KindUpdate, "approve", at, arg)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := Digest(approval{PlanHash: "abc"})
	ok := Request{Target: "instance/acme/web", Kind: KindUpdate, Name: "approve", Digest: d, Now: at.Add(time.Minute)}
	if err := k.Verify(a, ok); err != nil {
		t.Fatalf("a fresh attestation is refused: %v", err)
	}
	// Through the header, as the worker reads it.
	h := map[string]*commonpb.Payload{}
	if err := add(h, a, converter.GetDefaultDataConverter()); err != nil {
		t.Fatal(err)
	}
	got, err := k.check(h, ok, converter.GetDefaultDataConverter())
	if err != nil || got.Name != "alice" || got.Groups[0] != "tenant:acme" {
		t.Fatalf("check = %v, %v; want alice", got, err)
	}

	cases := map[string]struct {
		mutate func(*Attestation)
		req    func(*Request)
		want   string
	}{
		"actor tampered":   {mutate: func(a *Attestation) { a.Actor.Groups = []string{"platform-admins"} }, want: "MAC does not match"},
		"name tampered":    {mutate: func(a *Attestation) { a.Actor.Name = "carol" }, want: "MAC does not match"},
		"time tampered":    {mutate: func(a *Attestation) { a.IssuedAt = a.IssuedAt.Add(time.Hour) }, want: "MAC does not match"},
		"unknown key":      {mutate: func(a *Attestation) { a.KeyID = "deadbeef" }, want: "does not hold"},
		"other workflow":   {req: func(r *Request) { r.Target = "instance/other/web" }, want: "is for workflow"},
		"other update":     {req: func(r *Request) { r.Name = "reject" }, want: `is for update "approve"`},
		"a signal instead": {req: func(r *Request) { r.Kind = KindSignal }, want: "is for update"},
		"other arguments": {req: func(r *Request) {
			r.Digest, _ = Digest(approval{PlanHash: "abd"})
		}, want: "arguments differ"},
		"expired":         {req: func(r *Request) { r.Now = at.Add(MaxAge + time.Second) }, want: "expired"},
		"from the future": {req: func(r *Request) { r.Now = at.Add(-time.Hour) }, want: "in the future"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a2, req := a, ok
			a2.Actor.Groups = append([]string(nil), a.Actor.Groups...)
			if c.mutate != nil {
				c.mutate(&a2)
			}
			if c.req != nil {
				c.req(&req)
			}
			err := k.Verify(a2, req)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify = %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestWrongKey(t *testing.T) {
	k, other := ring(t), ring(t)
	at := time.Now()
	a, _ := k.Sign(alice, "w", KindSignal, "s", at, 1)
	d, _ := Digest(1)
	if err := other.Verify(a, Request{Target: "w", Kind: KindSignal, Name: "s", Digest: d, Now: at}); err == nil || !strings.Contains(err.Error(), "does not hold") {
		t.Fatalf("a key the worker does not hold verified: %v", err)
	}
	// A forger who knows the key ID but not the key.
	a.KeyID = other.ActiveID()
	if err := other.Verify(a, Request{Target: "w", Kind: KindSignal, Name: "s", Digest: d, Now: at}); err == nil || !strings.Contains(err.Error(), "MAC does not match") {
		t.Fatalf("a MAC made with another key verified: %v", err)
	}
}

func TestRotation(t *testing.T) {
	old, _ := Generate()
	next, _ := Generate()
	signer, _ := Parse("old", old)
	ring, err := Parse("both", next+","+old)
	if err != nil {
		t.Fatal(err)
	}
	if ring.ActiveID() == signer.ActiveID() {
		t.Fatal("the first key must sign")
	}
	at := time.Now()
	a, _ := signer.Sign(alice, "w", KindStart, "t", at)
	d, _ := Digest()
	if err := ring.Verify(a, Request{Target: "w", Kind: KindStart, Name: "t", Digest: d, Now: at}); err != nil {
		t.Fatalf("an old key's attestation is refused during a rotation: %v", err)
	}
}

func TestServiceFromWorkflowNeverExpires(t *testing.T) {
	k := ring(t)
	at := time.Now()
	a, _ := k.Sign(WorkflowService, "w", KindSignal, "step", at, "x")
	d, _ := Digest("x")
	if err := k.Verify(a, Request{Target: "w", Kind: KindSignal, Name: "step", Digest: d, Now: at.Add(24 * time.Hour)}); err != nil {
		t.Fatalf("a workflow's own signal, delivered late, is refused: %v", err)
	}
}

func TestNoHeader(t *testing.T) {
	k := ring(t)
	if _, err := k.check(nil, Request{Kind: KindSignal, Name: "approval-decision"}, converter.GetDefaultDataConverter()); err == nil || !strings.Contains(err.Error(), "carries no slipway attestation") {
		t.Fatalf("check(nil) = %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		"":             "no key",
		"not base64!":  "not valid standard base64",
		"c2hvcnQ=":     "exactly 32 bytes",
		"# only\n\n  ": "no key",
	} {
		if _, err := Parse("SLIPWAY_ATTEST_KEY", text); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "SLIPWAY_ATTEST_KEY") {
			t.Errorf("Parse(%q) = %v, want %q naming the source", text, err, want)
		}
	}
}

func TestLoadAndDevKey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv(EnvKey, "")
	t.Setenv(EnvKeyFile, "")
	path, err := EnsureDevKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := EnsureDevKey(dir)
	if err != nil || again != path {
		t.Fatalf("EnsureDevKey again = %q, %v", again, err)
	}
	k1, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvKeyFile, path)
	k2, err := Load()
	if err != nil || k2.ActiveID() != k1.ActiveID() {
		t.Fatalf("Load from %s = %v", EnvKeyFile, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a world-readable key file loads: %v", err)
	}
	t.Setenv(EnvKeyFile, filepath.Join(dir, "missing"))
	if _, err := Load(); err == nil {
		t.Fatal("a missing key file loads")
	}
}

// BenchmarkSignVerify: what one attestation costs a client and the worker.
func BenchmarkSignVerify(b *testing.B) {
	key, _ := Generate()
	k, _ := Parse("bench", key)
	arg := approval{PlanHash: strings.Repeat("a", 64), Note: "bench"}
	d, _ := Digest(arg)
	at := time.Now()
	for b.Loop() {
		a, err := k.Sign(alice, "instance/acme/web", KindUpdate, "approve", at, arg)
		if err != nil {
			b.Fatal(err)
		}
		if err := k.Verify(a, Request{Target: "instance/acme/web", Kind: KindUpdate, Name: "approve", Digest: d, Now: at}); err != nil {
			b.Fatal(err)
		}
	}
}
