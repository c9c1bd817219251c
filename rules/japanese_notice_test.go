package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestJapaneseReasonLineDecidesItsFamily checks that the labelled reason
// of a Japanese gateway's notice (no code, Japanese only) gives the reason
// its core phrase names, in several wordings each, rather than "a language
// ndrmilter cannot read".
func TestJapaneseReasonLineDecidesItsFamily(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct {
		diag string
		want Reason
	}{
		{"拒否理由 : パスワード付き(暗号化)ZIPファイルが添付されています", ReasonPolicyViolation},
		{"理由: 暗号化ZIPファイル(PPAP)は受信できません", ReasonPolicyViolation},
		{"エラー内容: ppap対策のため暗号化されたファイルは受け取れません", ReasonPolicyViolation},
		{"理由 : メールサイズが上限を超えています (23.4MB / 10MB)", ReasonMesgTooBig},
		{"詳細: サイズ制限を超えたため配送できませんでした", ReasonMesgTooBig},
		{"詳細: メールボックスの容量を超えているため、受け取れませんでした。", ReasonMailboxFull},
		{"理由: 容量超過", ReasonMailboxFull},
		{"エラー内容: ウイルスが検出されました(Trojan.Agent-12345)", ReasonVirusDetected},
		{"理由: 宛先不明", ReasonUserUnknown},
		{"理由: 宛先のメールアドレスが見つかりません。", ReasonUserUnknown},
		{"エラー内容: 存在しないユーザです", ReasonUserUnknown},
		{"理由 : 宛先ドメインの受信ポリシーにより配信を停止しました", ReasonPolicyViolation},
		{"以下のメールは配信できませんでした。", ReasonUndefined},
	} {
		v := e.Classify(Input{Action: smtpcode.ActionFailed, Diagnostic: c.diag})
		if v.Reason != c.want {
			t.Errorf("%q: reason %s (rule %s), want %s", c.diag, v.Reason, v.Rule, c.want)
		}
		if strings.Contains(v.Explanation, "cannot read") {
			t.Errorf("%q: explanation %q says the text cannot be read", c.diag, v.Explanation)
		}
	}
}

// TestJapaneseEncryptedZipIsARefusedAttachmentNotAVirus checks the
// precedence of the Japanese families: a password-protected ZIP refused
// because it cannot be checked for viruses (the notice says ウイルスチェック)
// is the encrypted attachment family, with the file named, owned by the
// sender, not malware.
func TestJapaneseEncryptedZipIsARefusedAttachmentNotAVirus(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: smtpcode.ActionFailed,
		Diagnostic: "拒否理由 : パスワード付き(暗号化)ZIPファイルが添付されています. 添付ファイル: mitsumori_2026.zip パスワード付きZIPファイルは、ウイルスチェックができないため受信しておりません。"})
	if v.Facts.Get(FactEncryptedAttachment) == "" || v.Facts.Get(FactFile) != "mitsumori_2026.zip" {
		t.Errorf("rule %s, facts %v: want encrypted_attachment and the file", v.Rule, v.Facts)
	}
	if v.Reason == ReasonVirusDetected || v.Owner != OwnerSender || !strings.Contains(v.Explanation, "encrypted or password-protected") {
		t.Errorf("reason %s, owner %s, explanation %q: want the encrypted attachment's reading", v.Reason, v.Owner, v.Explanation)
	}
}
