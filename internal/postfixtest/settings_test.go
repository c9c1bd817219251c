package postfixtest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadSettingsJoinsContinuationLinesAndSkipsComments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "main.cf")
	text := "# a comment\n\nsmtpd_milters = { inet:127.0.0.1:9890,\n    default_action=accept }\n  # a comment inside is skipped\nmilter_protocol = 6\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"smtpd_milters = { inet:127.0.0.1:9890, default_action=accept }", "milter_protocol = 6"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadSettings = %q, want %q", got, want)
	}
}

func TestReadSettingsRejectsALineThatIsNotASetting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "main.cf")
	if err := os.WriteFile(path, []byte("milter_protocol = 6\nnot a setting\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSettings(path); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ReadSettings of a line without '=': error %v, want one naming line 2", err)
	}
}

func TestSettingsReplaceTheTemplatesOfTheSameName(t *testing.T) {
	got, err := mergeSettings("a = 1\nmynetworks = 127.0.0.0/8\nb = 2\n", []string{"mynetworks = 127.0.0.2/32", "c = 3"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a = 1\nmynetworks = 127.0.0.2/32\nb = 2\nc = 3\n"; got != want {
		t.Errorf("merged main.cf:\n%s\nwant:\n%s", got, want)
	}
}

func TestTemplatesAreMainCfSettings(t *testing.T) {
	data := templateData{Dir: "/d", Log: "/d/log/maillog", SMTP: "127.0.0.1:1", Relay: "[127.0.0.1]:2", Domain: Domain, LocalDomain: LocalDomain}
	mainCf := string(render(t, "main.cf", data))
	settings, err := parseSettings(mainCf)
	if err != nil {
		t.Fatalf("testdata/main.cf: %v", err)
	}
	for _, want := range []string{"queue_directory = /d/queue", "relayhost = [127.0.0.1]:2", "mydestination = " + LocalDomain} {
		found := false
		for _, s := range settings {
			found = found || s == want
		}
		if !found {
			t.Errorf("testdata/main.cf filled has no %q", want)
		}
	}
	if master := string(render(t, "master.cf", data)); !strings.Contains(master, "\n127.0.0.1:1 inet n - n - - smtpd\n") {
		t.Errorf("testdata/master.cf filled has no smtpd on 127.0.0.1:1:\n%s", master)
	}
}

// kitFile is a deploy-kit file with a main.cf part and a master.cf part.
const kitFile = `# A snippet.
# ==== main.cf ====
# the filter
content_filter = ndrfilter:[127.0.0.1]:9893
receive_override_options =
    no_address_mappings

# ==== master.cf ====
ndrfilter unix  -       -       n       -       10      smtp
  -o smtp_send_xforward_command=yes
#  -o commented_out=yes
  -o smtp_generic_maps=
smtp      inet  n       -       y       -       20      smtpd
  -o smtpd_proxy_filter=127.0.0.1:9893
`

func TestReadSettingsAndServicesReadTheirPartOfADeployKitFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kit.cf")
	if err := os.WriteFile(path, []byte(kitFile), 0o644); err != nil {
		t.Fatal(err)
	}
	settings, err := ReadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"content_filter = ndrfilter:[127.0.0.1]:9893", "receive_override_options = no_address_mappings"}; !reflect.DeepEqual(settings, want) {
		t.Errorf("ReadSettings = %q, want %q", settings, want)
	}
	services, err := ReadServices(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ndrfilter unix  -       -       n       -       10      smtp -o smtp_send_xforward_command=yes -o smtp_generic_maps=",
		"smtp      inet  n       -       y       -       20      smtpd -o smtpd_proxy_filter=127.0.0.1:9893",
	}
	if !reflect.DeepEqual(services, want) {
		t.Errorf("ReadServices = %q, want %q", services, want)
	}
}

func TestReadServicesRejectsAnEntryWithoutItsEightFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "master.cf")
	if err := os.WriteFile(path, []byte("ndrfilter unix - - n - 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadServices(path); err == nil || !strings.Contains(err.Error(), "command") {
		t.Errorf("ReadServices of an entry with six fields: error %v, want one asking for the command", err)
	}
}

func TestServicesJoinTheTemplateTheSmtpEntryBecomingTheInstancesSmtpd(t *testing.T) {
	base := "127.0.0.1:2525 inet n - n - - smtpd\npickup unix n - n 60 1 pickup\n"
	got, inet, err := mergeServices(base, "127.0.0.1:2525", []string{
		"smtp inet n - y - 20 smtpd -o smtpd_proxy_filter=127.0.0.1:9893",
		"127.0.0.1:9894 inet n - n - - smtpd -o content_filter=",
		"pickup unix n - y 60 1 pickup -o content_filter=x",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "127.0.0.1:2525 inet n - n - 20 smtpd -o smtpd_proxy_filter=127.0.0.1:9893\n" +
		"pickup unix n - n 60 1 pickup -o content_filter=x\n" +
		"127.0.0.1:9894 inet n - n - - smtpd -o content_filter=\n"
	if got != want {
		t.Errorf("merged master.cf:\n%s\nwant:\n%s", got, want)
	}
	if w := []string{"127.0.0.1:2525", "127.0.0.1:9894"}; !reflect.DeepEqual(inet, w) {
		t.Errorf("smtpd listeners = %q, want %q", inet, w)
	}
}
