/**
 * A fresh two-factor secret, to put into an authenticator app: the QR code of its otpauth URL,
 * and the secret as text (to type in, or copy) for when the camera cannot be used.
 */
import { QRCodeSVG } from 'qrcode.react';

import { CopyButton } from './copy-button';

interface TotpSecretProps {
  /** `otpauth://totp/...` */
  url: string;
  /** The base32 secret inside it. */
  secret: string;
  /** The QR code's accessible name. */
  qrLabel: string;
  /** What the secret is called (its label, and the copy button's "Copy ..."). */
  secretLabel: string;
}

export function TotpSecret({ url, secret, qrLabel, secretLabel }: TotpSecretProps) {
  return (
    <>
      <div className="invite-qr">
        <QRCodeSVG value={url} title={qrLabel} size={168} marginSize={2} bgColor="#ffffff" fgColor="#0b0e14" />
      </div>
      <div className="twofa-secret">
        <span className="muted small">{secretLabel}</span>
        <code className="ltr break" dir="ltr" data-testid="twofa-secret">
          {secret}
        </code>
        <CopyButton text={secret} label={secretLabel} />
      </div>
    </>
  );
}
