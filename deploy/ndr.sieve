# ndrmilter: file bounces by what ndrmilter found (RFC 5228 Sieve, with the
# fileinto, mailbox and variables extensions; tested with Dovecot Pigeonhole).
#
# X-NDR-* headers are trustworthy because ndrmilter removes every X-NDR-*
# header that arrives from outside before it writes its own: keep it in
# smtpd_milters on every server that receives mail from the Internet.
#
# Folder names use "/" as the hierarchy separator (Dovecot's
# "separator = /"); with Maildir++'s default "." write "Bounces.sender".
require ["fileinto", "mailbox", "variables"];

# 1. Backscatter: a bounce for a message that never left here (its
#    Message-ID, queue id or sender/recipient pair is not in the ledger).
#    Value: "yes; evidence=message-id" and the like.
if header :matches "X-NDR-Backscatter" ["yes", "yes;*", "yes *"] {
    fileinto :create "Junk";
    stop;
}

# 2. Real bounces: one folder per owner, the party who must act:
#    sender, sender-admin, recipient, recipient-admin, group-owner, none (temporary
#    failure: nothing to do but wait) or unknown.
if header :matches "X-NDR-Owner" "*" {
    set :lower "owner" "${1}";
    if string :is "${owner}" ["sender", "sender-admin", "recipient", "recipient-admin", "group-owner", "none", "unknown"] {
        fileinto :create "Bounces/${owner}";
        stop;
    }
}

# 3. Finer rules read X-NDR-Status, one header per reported recipient:
#    status=5.1.1; reason=userunknown; recipient=a@b.example; permanent=yes;
#    owner=sender; action=failed; status-source=server
# An address that does not exist: the sender should fix their address book.
#if header :contains "X-NDR-Status" "reason=userunknown" {
#    fileinto :create "Bounces/address-does-not-exist";
#    stop;
#}
