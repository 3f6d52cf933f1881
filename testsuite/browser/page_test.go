package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// envRequire="1" turns a missing chromium into a test failure instead of a skip (CI sets it).
const envRequire = "SLIPWAY_REQUIRE_BROWSER"

// chromium finds Debian's chromium (scripts/apt-deps.sh installs it), or skips t.
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv(envRequire) == "1" {
			t.Fatalf("chromium not found (%v): run scripts/apt-deps.sh", err)
		}
		t.Skipf("chromium not found (%v): run scripts/apt-deps.sh, or set %s=1 to fail instead", err, envRequire)
	}
	return path
}

// artifactsDir is where a test leaves its screenshots: $SLIPWAY_ARTIFACTS_DIR/<test>, or a temp dir.
func artifactsDir(t *testing.T) string {
	t.Helper()
	root := os.Getenv("SLIPWAY_ARTIFACTS_DIR")
	if root == "" {
		return t.TempDir()
	}
	dir := filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artifacts dir: %v", err)
	}
	return dir
}

// page is one tab of a headless chromium that this test started; it stops with the test.
type page struct {
	t       *testing.T
	ctx     context.Context
	chrome  string // chromium's path, to start it again
	base    string // the UI's URL, e.g. http://127.0.0.1:PORT
	dir     string // screenshots go here
	restart func() // stops this chromium
}

// openPage starts chromium headless (no sandbox: tests run as root; no GPU) with one
// tab. Cancelling the allocator waits for chromium and its children to exit.
func openPage(t *testing.T, chromiumPath, base string) *page {
	t.Helper()
	p := &page{t: t, chrome: chromiumPath, base: base, dir: artifactsDir(t)}
	p.start()
	t.Cleanup(func() { p.restart() })
	return p
}

// start starts chromium with one tab, stopping the one before if any.
func (p *page) start() {
	p.t.Helper()
	if p.restart != nil {
		p.restart()
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(p.chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1400, 1000))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	p.ctx, p.restart = ctx, func() {
		cancelTab()
		cancelAlloc()
	}
	// Starts the browser now, so a broken one fails here. The UI scrolls inside a
	// viewport-high layout, so the viewport is what a "full page" screenshot shows.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1000)); err != nil {
		p.t.Fatalf("start chromium %s: %v", p.chrome, err)
	}
}

// waitFor opens the UI path and reads the page's text until ok accepts it, reloading
// every reload (0: never) while it waits, for at most bound. It fails the test with
// the last text it read, and returns the accepted text. A tab that stops answering
// for 15s (CI once saw chromium's tab detach under load: "Not attached to an active
// page") is replaced by a new chromium on the same path, and that is logged.
func (p *page) waitFor(path string, reload, bound time.Duration, what string, ok func(text string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(bound)
	navigate := func() {
		ctx, cancel := context.WithDeadline(p.ctx, deadline)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(p.base+path)); err != nil {
			p.t.Fatalf("open %s: %v", path, err)
		}
	}
	navigate()
	start := time.Now()
	loaded, answered := start, start
	text := ""
	var lastErr error
	for {
		// innerText is what the user sees: rendered text, not markup or hidden nodes.
		ctx, cancel := context.WithDeadline(p.ctx, deadline)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		cancel()
		if err == nil {
			text, answered = got, time.Now()
			if ok(text) {
				p.t.Logf("seen after %s: %s", time.Since(start).Round(time.Millisecond), what)
				return text
			}
		} else {
			lastErr = err
		}
		if !time.Now().Before(deadline) {
			p.screenshot("timeout")
			saved := filepath.Join(p.dir, "timeout.txt")
			_ = os.WriteFile(saved, []byte(text), 0o644)
			if len(text) > 3000 {
				text = text[:3000] + "…"
			}
			p.t.Fatalf("%s: not seen at %s within %s (the tab's last error: %v); the page said (all of it in %s):\n%s", what, path, bound, lastErr, saved, text)
		}
		time.Sleep(250 * time.Millisecond)
		switch {
		case time.Since(answered) > 15*time.Second:
			p.t.Logf("the tab has not answered for %s (%v): starting chromium again", time.Since(answered).Round(time.Second), lastErr)
			p.start()
			navigate()
			loaded, answered = time.Now(), time.Now()
		case reload > 0 && time.Since(loaded) >= reload:
			ctx, cancel := context.WithDeadline(p.ctx, deadline)
			if err := chromedp.Do(ctx, chromedp.Reload()); err != nil && ctx.Err() == nil {
				p.t.Logf("reload %s: %v", path, err)
			}
			cancel()
			loaded = time.Now()
		}
	}
}

// screenshot saves the whole page as a PNG named after the stage and returns its path.
func (p *page) screenshot(stage string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 is PNG
	if err != nil {
		p.t.Errorf("screenshot %s: %v", stage, err)
		return ""
	}
	path := filepath.Join(p.dir, fmt.Sprintf("%s.png", stage))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Errorf("screenshot %s: %v", stage, err)
		return ""
	}
	p.t.Logf("screenshot %s: %s", stage, path)
	return path
}

// pasteCodecEndpoint sets the UI's codec endpoint for this browser, as an operator
// does by hand: the Codec Server button (top right), the Codec Server browser
// endpoint field, then Apply. The UI keeps it in the browser's local storage.
func (p *page) pasteCodecEndpoint(endpoint string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid^="data-encoder-status"]`), chromedp.NodeVisible),
		chromedp.SendKeys(chromedp.CSS(`#data-encoder-endpoint-input`), endpoint, chromedp.NodeVisible),
	)
	if err != nil {
		p.t.Fatalf("open the UI's Codec Server settings: %v", err)
	}
	p.screenshot("codec-server-settings")
	clicked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const apply = [...document.querySelectorAll("button")].find(b => b.innerText.trim() === "Apply");
		if (apply) apply.click();
		return !!apply;
	})()`))
	if err != nil || !clicked {
		p.t.Fatalf("the UI's Codec Server settings have no Apply button (err %v)", err)
	}
}
