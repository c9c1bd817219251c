//go:build e2e

package helpdesk_test

// The helpdesk page in a real browser: headless Chromium (Debian's chromium
// package, which "make deps" installs) driven over the DevTools protocol by
// github.com/chromedp/chromedp. Run with "make e2e" (go test -tags e2e).
// Without Chromium the test fails, unless NDRMILTER_SKIP_BROWSER=1 says to
// skip it. NDRMILTER_SCREENSHOT_DIR=DIR also writes the screenshots there
// (docs/helpdesk-en.png and docs/helpdesk-ja.png are made so).

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds Chromium, or fails the test saying how to get it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("NDRMILTER_SKIP_BROWSER") == "1" {
		t.Skip("Chromium is not installed and NDRMILTER_SKIP_BROWSER=1: the browser test is skipped")
	}
	t.Fatal("Chromium is not installed: run make deps (apt-get install chromium), or set NDRMILTER_SKIP_BROWSER=1 to skip the browser test")
	return ""
}

// browser starts headless Chromium with a fresh profile and the flags that
// keep it off the network (this machine has none: without them Chromium
// waits on connections), and collects what it logs as errors (a refused
// resource, a Content-Security-Policy violation, a script error).
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	// The first Run starts the browser and opens the tab.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("Chromium did not start: %v", err)
	}
	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				problems = append(problems, ev.Entry.Text)
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, ev.ExceptionDetails.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	return tctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), problems...) }
}

// saveScreenshot writes a picture in the test's temp directory, and in
// NDRMILTER_SCREENSHOT_DIR when it is set.
func saveScreenshot(t *testing.T, name string, img []byte) {
	t.Helper()
	dirs := []string{t.TempDir()}
	if d := os.Getenv("NDRMILTER_SCREENSHOT_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, img, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
}

// text is the visible text of the first element sel selects.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return s
}

const explainButton = `form[enctype="multipart/form-data"] button[type=submit]`

// pasteBounce opens the page at url, pastes a bounce of a message never
// sent from here, submits it, waits for the result and checks that the page
// says it is in language lang (<html lang>).
func pasteBounce(t *testing.T, ctx context.Context, url, lang string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("text")),
		// Pasted text has the line ends of the browser: LF.
		chromedp.SetValue(chromedp.ID("text"), strings.ReplaceAll(bounce("never.sent@example.org"), "\r\n", "\n")),
		chromedp.Click(chromedp.CSS(explainButton)),
		chromedp.WaitVisible(chromedp.ID("result")),
	)
	if err != nil {
		t.Fatalf("paste and submit: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("html"), "lang"))
	if err != nil || got.Value != lang {
		t.Errorf("<html lang=%q>: %v; want %s", got.Value, err, lang)
	}
}

func TestBrowserPastesABounceAndReadsWhoMustFixIt(t *testing.T) {
	ctx, problems := browser(t)
	base := page(t, nil, 0)
	pasteBounce(t, ctx, base+"/", "en")
	if acting := text(t, ctx, ".owners li.acting .who"); acting != "Sender" {
		t.Errorf("the owner graphic highlights %q, want Sender", acting)
	}
	if s := text(t, ctx, ".recipient .explanation"); !strings.Contains(s, "was refused by mx.remote.example because the address does not exist there") {
		t.Errorf("explanation: %q", s)
	}
	if s := text(t, ctx, ".recipient .fix"); !strings.Contains(s, "Check the address for typos") {
		t.Errorf("fix: %q", s)
	}
	if s := text(t, ctx, ".verdict"); !strings.Contains(s, "Backscatter: this bounce is about a message that never left this server") {
		t.Errorf("verdict: %q", s)
	}
	// The details for admins open with the keyboard.
	err := chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS(".recipient summary")),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(".recipient details dl")),
	)
	if err != nil {
		t.Fatalf("opening the details with the keyboard: %v", err)
	}
	if s := text(t, ctx, ".recipient details dl"); !strings.Contains(s, "5.1.1 (permanent)") || !strings.Contains(s, "mx.remote.example") {
		t.Errorf("details for admins: %q", s)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	saveScreenshot(t, "helpdesk-en.png", shot)
	if p := problems(); len(p) > 0 {
		t.Errorf("the browser reported errors (a refused resource or a script error): %q", p)
	}
}

// The page in Japanese, chosen by ?lang=ja: the form, the owner graphic and
// the explanation are in Japanese, and the <html lang> says so (for the
// fonts and screen readers). docs/helpdesk-ja.png is made by this test.
func TestBrowserReadsABounceInJapanese(t *testing.T) {
	ctx, problems := browser(t)
	base := page(t, nil, 0)
	pasteBounce(t, ctx, base+"/?lang=ja", "ja")
	if acting := text(t, ctx, ".owners li.acting .who"); acting != "送信者" {
		t.Errorf("the owner graphic highlights %q, want 送信者 (the sender)", acting)
	}
	expl := text(t, ctx, ".recipient .explanation")
	if !strings.Contains(expl, "mx.remote.example") || strings.Contains(expl, "was refused") || !strings.ContainsAny(expl, "ましたです") {
		t.Errorf("explanation is not the Japanese one: %q", expl)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	saveScreenshot(t, "helpdesk-ja.png", shot)
	if p := problems(); len(p) > 0 {
		t.Errorf("the browser reported errors: %q", p)
	}
}

// On a phone's width the page stacks: the three parties of the owner
// graphic one above the other, nothing wider than the screen.
func TestBrowserPageFitsAPhone(t *testing.T) {
	ctx, problems := browser(t)
	base := page(t, nil, 0)
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		chromedp.Navigate(base+"/"),
		chromedp.SetValue(chromedp.ID("text"), "5.7.509"),
		chromedp.Submit(chromedp.ID("text")),
		chromedp.WaitVisible(chromedp.ID("result")),
	)
	if err != nil {
		t.Fatalf("the page on a phone: %v", err)
	}
	widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[document.documentElement.scrollWidth, window.innerWidth]`))
	if err != nil {
		t.Fatal(err)
	}
	if widths[0] > widths[1] {
		t.Errorf("the page is %v px wide on a %v px screen: it scrolls sideways", widths[0], widths[1])
	}
	tops, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll(".owners li"), li => li.getBoundingClientRect().top)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tops) != 3 || !(tops[0]+20 < tops[1] && tops[1]+20 < tops[2]) {
		t.Errorf("on a phone the owner graphic is not stacked: tops %v", tops)
	}
	if acting := text(t, ctx, ".owners li.acting .who"); acting != "Your email admin" {
		t.Errorf("5.7.509: the graphic highlights %q, want Your email admin", acting)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	saveScreenshot(t, "helpdesk-en-phone.png", shot)
	if p := problems(); len(p) > 0 {
		t.Errorf("the browser reported errors: %q", p)
	}
}

// A file chosen in the form (what dropping a file does, through the
// script) is read.
func TestBrowserReadsAChosenFile(t *testing.T) {
	ctx, problems := browser(t)
	base := page(t, nil, 0)
	eml := filepath.Join(t.TempDir(), "bounce.eml")
	os.WriteFile(eml, []byte(bounce("sent.1@example.org")), 0o644)
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.SetUploadFiles(chromedp.ID("file"), []string{eml}),
		chromedp.Click(chromedp.CSS(explainButton)),
		chromedp.WaitVisible(chromedp.ID("result")),
	)
	if err != nil {
		t.Fatalf("choose a file and submit: %v", err)
	}
	if s := text(t, ctx, ".verdict"); !strings.Contains(s, "A real bounce: the message it is about left through this server.") {
		t.Errorf("verdict of the chosen file: %q", s)
	}
	if p := problems(); len(p) > 0 {
		t.Errorf("the browser reported errors: %q", p)
	}
}
