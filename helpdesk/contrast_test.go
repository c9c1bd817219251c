package helpdesk

import (
	"math"
	"regexp"
	"strconv"
	"testing"
)

// luminance is the relative luminance of a #rrggbb colour (WCAG 2.1,
// definition of relative luminance).
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	if len(hex) != 7 || hex[0] != '#' {
		t.Fatalf("colour %q: expected #rrggbb", hex)
	}
	var l [3]float64
	for i := range l {
		v, err := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		if err != nil {
			t.Fatalf("colour %q: %v", hex, err)
		}
		c := float64(v) / 255
		if c <= 0.03928 {
			l[i] = c / 12.92
		} else {
			l[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

// The text colours of the style sheet on their backgrounds meet WCAG 2.1
// AA: a contrast of 4.5:1 for text.
func TestColoursMeetWCAGContrast(t *testing.T) {
	css, err := static.ReadFile("static/page.css")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"#fff": "#ffffff"}
	for _, m := range regexp.MustCompile(`--([a-z-]+):\s*(#[0-9a-f]{6});`).FindAllStringSubmatch(string(css), -1) {
		vars[m[1]] = m[2]
	}
	color := func(name string) string {
		if v, ok := vars[name]; ok {
			return v
		}
		return name
	}
	for _, pair := range [][2]string{
		{"fg", "bg"}, {"fg", "panel"}, {"muted", "bg"}, {"muted", "panel"}, {"#fff", "accent"}, {"#fff", "#083b75"},
		{"act", "act-bg"}, {"#fff", "act"}, {"fg", "act-bg"}, {"fg", "ok-bg"}, {"fg", "warn-bg"}, {"muted", "warn-bg"}, {"muted", "ok-bg"},
	} {
		a, b := luminance(t, color(pair[0])), luminance(t, color(pair[1]))
		ratio := (math.Max(a, b) + 0.05) / (math.Min(a, b) + 0.05)
		if ratio < 4.5 {
			t.Errorf("%s on %s: contrast %.2f:1, below 4.5:1", pair[0], pair[1], ratio)
		}
	}
	// The keyboard focus ring: 3:1 against what it is drawn on (WCAG 2.1
	// success criterion 1.4.11, non-text contrast).
	for _, bg := range []string{"bg", "panel", "act-bg"} {
		a, b := luminance(t, color("focus")), luminance(t, color(bg))
		if ratio := (math.Max(a, b) + 0.05) / (math.Min(a, b) + 0.05); ratio < 3 {
			t.Errorf("the focus ring on %s: contrast %.2f:1, below 3:1", bg, ratio)
		}
	}
}
