package dsn

import (
	"os"
	"strings"
	"testing"
)

// A list's moderation notice names the list that holds the post as its
// recipient, with the reason it gives, never the notice's From (the list's
// owner or bounce robot): Mailman 2 postheld.txt, Mailman 3
// list:user:notice:hold, Sympa, Google Groups.
func TestModerationHoldNamesTheListAndTheReasonNotTheNoticeSender(t *testing.T) {
	tests := []struct {
		name, header, body, list, reason string
	}{
		{"mailman 3 quoted address, non-member",
			"From: dev-owner@lists.example.org\r\nSubject: Your message to Dev awaits moderator approval\r\nPrecedence: bulk\r\n",
			"Your mail to 'dev@lists.example.org' with the subject\r\n\r\n    [PATCH] x\r\n\r\nIs being held until the list moderator can review it for approval.\r\n\r\nThe message is being held because:\r\n\r\n    The message is not from a list member\r\n\r\nEither the message will get posted to the list, or you will receive\r\nnotification of the moderator's decision.\r\n",
			"dev@lists.example.org", "The message is not from a list member"},
		{"mailman 2 bare list name, the address from X-BeenThere",
			"From: astro-owner@lists.example.net\r\nSubject: Your message to astro awaits moderator approval\r\nX-BeenThere: astro@lists.example.net\r\n",
			"Your mail to 'astro' with the subject\r\n\r\n    Photos\r\n\r\nIs being held until the list moderator can review it for approval.\r\n\r\nThe reason it is being held:\r\n\r\n    Too many recipients to the message\r\n\r\nEither the message will get posted to the list, or you will receive\r\nnotification of the moderator's decision.\r\n",
			"astro@lists.example.net", "Too many recipients to the message"},
		{"sympa, no reason given",
			"From: sympa@listes.example.fr\r\nSubject: Message forwarded to the moderator\r\n",
			"Your message for list 'doc@listes.example.fr' has been forwarded to the moderator(s).\r\n",
			"doc@listes.example.fr", ""},
		{"sympa in french, the list named bare: the list at the robot's domain",
			"From: SYMPA <sympa@listes.example.fr>\r\nSubject: =?UTF-8?Q?Message_transmis_aux_mod=C3=A9rateurs?=\r\nX-Loop: sympa@listes.example.fr\r\nAuto-Submitted: auto-replied\r\nContent-Transfer-Encoding: 8bit\r\n",
			"Votre message pour la liste 'cours' a \xc3\xa9t\xc3\xa9 transmis aux mod\xc3\xa9rateurs.\r\n",
			"cours@listes.example.fr", ""},
		{"sympa in spanish, the list from X-Loop",
			"From: listas-robot@listas.example.es\r\nSubject: =?UTF-8?Q?Mensaje_enviado_a_moderaci=C3=B3n?=\r\nX-Loop: coro@listas.example.es\r\nAuto-Submitted: auto-replied\r\nContent-Transfer-Encoding: 8bit\r\n",
			"Su mensaje para la lista 'coro' ha sido reenviado a los moderadores.\r\n",
			"coro@listas.example.es", ""},
		{"sympa in italian, the robot's X-Loop is no list",
			"From: Listmaster <listmaster@liste.example.it>\r\nSubject: Messaggio in moderazione\r\nX-Loop: sympa@liste.example.it\r\nAuto-Submitted: auto-replied\r\n",
			"Il tuo messaggio per la lista 'soci' e' stato inoltrato ai moderatori.\r\n",
			"", ""},
		{"mailman 2 in french, the reason after its translated label",
			"From: club-owner@listes.example.org\r\nSubject: =?UTF-8?Q?Votre_message_=C3=A0_club_est_en_attente_de_mod=C3=A9ration?=\r\nPrecedence: bulk\r\nX-BeenThere: club@listes.example.org\r\nContent-Transfer-Encoding: 8bit\r\n",
			"Votre courriel destin\xc3\xa9 \xc3\xa0 'club' ayant pour objet\r\n\r\n    Sortie\r\n\r\nest retenu jusqu'\xc3\xa0 ce que le mod\xc3\xa9rateur de la liste puisse l'examiner pour approbation.\r\n\r\nLa raison de cette retenue :\r\n\r\n    Message body is too big: 61440 bytes with a limit of 40 KB\r\n\r\n",
			"club@listes.example.org", "Message body is too big: 61440 bytes with a limit of 40 KB"},
		{"a list not named: no recipient rather than the robot",
			"From: LISTSERV@LISTS.EXAMPLE.EDU\r\nSubject: Your posting to NURSING\r\nReturn-Path: <>\r\n",
			"Your message has been submitted to the moderator of the NURSING list for approval.\r\n",
			"", ""},
	}
	for _, tc := range tests {
		raw := "To: me@example.com\r\n" + tc.header + "Content-Type: text/plain\r\n\r\n" + tc.body
		r, err := Parse([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Kind != KindAutoreply || r.Format != FormatListHeld {
			t.Errorf("%s: %s (%s), want an autoreply (%s)", tc.name, r.Kind, r.Format, FormatListHeld)
			continue
		}
		if tc.list == "" {
			if len(r.Recipients) != 0 {
				t.Errorf("%s: recipients %+v, want none", tc.name, r.Recipients)
			}
			continue
		}
		if len(r.Recipients) != 1 || r.Recipients[0].Address != tc.list || r.Recipients[0].Diagnostic != tc.reason {
			t.Errorf("%s: recipients %+v, want %s with reason %q", tc.name, r.Recipients, tc.list, tc.reason)
		}
		for _, rc := range r.Recipients {
			if strings.Contains(rc.Address, "owner") || strings.Contains(strings.ToLower(rc.Address), "sympa@") {
				t.Errorf("%s: the notice's sender %s named as the recipient", tc.name, rc.Address)
			}
		}
	}
}

// A list manager's own mailboxes (Sympa's sympa@ and listmaster@, the
// per-list -request, -owner, -bounces and -editor, Majordomo's owner-LIST)
// are never the list that holds a post; the list's own address is.
func TestListRobotAddressTellsRobotsFromLists(t *testing.T) {
	for a, robot := range map[string]bool{
		"sympa@listes.example.fr": true, "listmaster@listes.example.fr": true,
		"doc-request@lists.example.org": true, "doc-owner@lists.example.org": true,
		"doc-bounces+me=example.com@lists.example.org": true, "doc-editor@listes.example.fr": true,
		"owner-doc@lists.example.org": true, "doc@lists.example.org": false, "requests@example.org": false,
	} {
		if got := listRobotAddress(a); got != robot {
			t.Errorf("listRobotAddress(%s) = %v, want %v", a, got, robot)
		}
	}
}

// A Mailman 3 rejection announces its reasons with a colon and gives them
// in the next paragraph: the diagnostic holds both, and the failed
// recipient is the list, not the notice's -owner sender.
func TestMailman3RejectionReadsTheReasonsAfterTheColon(t *testing.T) {
	b, err := os.ReadFile("../internal/testdata/bounces/eml/list-rejected-03.eml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindBounce || r.Format != FormatListRejected || len(r.Recipients) != 1 {
		t.Fatalf("kind %s, format %s, %d recipients; want one list-rejected bounce", r.Kind, r.Format, len(r.Recipients))
	}
	rc := r.Recipients[0]
	if rc.Address != "dev@lists.forge.example" {
		t.Errorf("recipient %q, want the list dev@lists.forge.example", rc.Address)
	}
	if !strings.Contains(rc.Diagnostic, "not from a list member") {
		t.Errorf("diagnostic %q lacks the reason given after the colon", rc.Diagnostic)
	}
}
