package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

func startAPIServer(t *testing.T, e *testsuite.Env, p *oidcprovider.Provider) string {
	return e.StartAPIServer(t, p.Issuer, p.ClientID)
}

// until evaluates cond in the page until it is true, for at most bound.
func (p *page) until(cond, what string, bound time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, bound)
	defer cancel()
	for {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { try { return !!(`+cond+`) } catch (e) { return false } })()`)); err == nil && ok {
			return
		}
		select {
		case <-ctx.Done():
			p.screenshot("timeout")
			text, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
			_ = os.WriteFile(filepath.Join(p.dir, "timeout.txt"), []byte(text), 0o644)
			p.t.Fatalf("%s: not seen within %s; the page said:\n%s", what, bound, text)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// js runs a statement in the page.
func (p *page) js(stmt string) {
	p.t.Helper()
	_, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(() => { `+stmt+`; return true })()`))
	require.NoError(p.t, err, stmt)
}

// text is an element's text.
func (p *page) text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(document.querySelector(`+jsString(sel)+`) || {}).textContent || ""`))
	require.NoError(p.t, err)
	return s
}

// signIn signs user in on the tenant's page through the provider's own login and consent pages.
func (p *page) signIn(user string) {
	p.t.Helper()
	if at, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`location.href`)); !strings.HasPrefix(at, p.base+"/ui/") {
		require.NoError(p.t, chromedp.Do(p.ctx, chromedp.Navigate(p.base+"/ui/")))
	}
	p.until(`!document.getElementById('signin').hidden`, "the sign-in button", 30*time.Second)
	p.js(`document.getElementById('signin').click()`)
	p.until(`document.querySelector('form#login')`, "the provider's login page", 30*time.Second)
	p.js(`document.querySelector('input[name=login]').value = ` + jsString(user) + `;
		document.querySelector('input[name=password]').value = ` + jsString(oidcprovider.Password(user)) + `;
		document.querySelector('form#login').submit()`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		at, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.querySelector('form#consent') ? 'consent' : ((document.getElementById('who') || {dataset: {}}).dataset.name || '')`))
		if at == "consent" {
			p.js(`document.querySelector('form#consent').submit()`)
		} else if at == user {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.until(`document.getElementById('who').dataset.name === `+jsString(user), user+" signed in", time.Second)
}

// signOut signs out of the page (the provider's session stays: each sign-in asks prompt=login).
func (p *page) signOut() {
	p.t.Helper()
	p.js(`document.getElementById('signout').click()`)
	p.until(`location.pathname === '/ui/' && !document.getElementById('signin').hidden`, "signed out", 30*time.Second)
}

// The tenant's page in real Chromium, signed in with the OIDC test provider (authorization code
// with PKCE): alice creates acme/web from the example stack's form, watches its steps arrive
// live, sees only acme's instances, deploys it and asks for a destroy she may not approve; bob
// sees none of acme's; carol reads the plan summary and approves, and the destroy applies.
func TestTenantPageInChromium(t *testing.T) {
	chromiumPath := chromium(t)
	prov := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	url := startAPIServer(t, e, prov)
	// bob's tenant has an instance of its own.
	f := filepath.Join(t.TempDir(), "db.yaml")
	require.NoError(t, os.WriteFile(f, []byte("stack: example\nparameters:\n  greeting: hi\n"), 0o644))
	e.MustCLI(0, "create", "other/db", "-f", f, "--wait")

	p := openPage(t, chromiumPath, url)
	p.signIn("alice")
	p.until(`document.querySelector('#params [data-param=greeting]')`, "the example stack's form", 30*time.Second)
	p.until(`[...document.querySelectorAll('#instances tr')].length === 0 && !document.getElementById('none').hidden`, "no instance of acme yet, and not other/db", 10*time.Second)
	require.Equal(t, "acme", p.text("#tenant")+evalValue(t, p, "#tenant"))
	p.js(`document.getElementById('name').value = 'web';
		document.querySelector('#params [data-param=greeting]').value = 'hello from the form';
		document.getElementById('create').requestSubmit()`)
	p.until(`document.querySelectorAll('#events li[data-kind=step]').length >= 2`, "acme/web's steps arriving live", time.Minute)
	p.screenshot("alice-create-steps")
	p.until(`document.getElementById('state').textContent === 'ConfigurationCreated'`, "acme/web created", 2*time.Minute)
	p.until(`document.querySelector('#instances tr[data-ref="acme/web"]') && document.querySelectorAll('#instances tr').length === 1`, "alice's list: acme/web only", 30*time.Second)
	p.until(`document.querySelector('#actions [data-op=deploy]')`, "the deploy alice may ask for", 30*time.Second)
	p.js(`document.querySelector('#actions [data-op=deploy]').click()`)
	p.until(`document.getElementById('state').textContent === 'Deployed'`, "acme/web deployed", 2*time.Minute)
	p.until(`document.querySelector('#actions [data-op=destroy]')`, "the destroy alice may ask for", 30*time.Second)
	p.js(`document.querySelector('#actions [data-op=destroy]').click()`)
	p.until(`!document.getElementById('approval').hidden`, "the destroy awaiting approval", time.Minute)
	p.until(`document.getElementById('approve').hidden`, "alice may not approve her own destroy", time.Second)
	p.screenshot("alice-destroy-awaits-approval")

	p.signOut()
	p.signIn("bob")
	p.until(`document.querySelector('#instances tr[data-ref="other/db"]')`, "bob's own instance", 30*time.Second)
	require.NotContains(t, p.text("#instances"), "acme", "bob sees none of acme's instances")
	p.screenshot("bob-sees-no-acme")

	p.signOut()
	p.signIn("carol")
	p.until(`document.querySelector('#instances tr[data-ref="acme/web"]')`, "acme/web in carol's list", 30*time.Second)
	p.js(`document.querySelector('#instances tr[data-ref="acme/web"]').click()`)
	p.until(`!document.getElementById('approve').hidden`, "carol may approve", 30*time.Second)
	require.NotEmpty(t, p.text("#what"), "the plan summary she approves")
	p.screenshot("carol-approves")
	p.js(`document.getElementById('approve').click()`)
	p.until(`document.getElementById('state').textContent === 'Destroyed'`, "the destroy applied", 2*time.Minute)
	p.screenshot("carol-destroyed")
}

// evalValue is an input's value.
func evalValue(t *testing.T, p *page, sel string) string {
	t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.querySelector(`+jsString(sel)+`).value`))
	require.NoError(t, err)
	return s
}
