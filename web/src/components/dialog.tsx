/**
 * A modal dialog: labelled by its title, closed by Escape, the close button or a click on the
 * backdrop; focus moves into it on open and back to where it was on close. It is rendered at
 * the end of `<body>`, above every stacking context of the page (the chart's canvases too).
 */
import { type ReactNode, useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';

import { CloseIcon } from './icons';

interface DialogProps {
  open: boolean;
  title: ReactNode;
  onClose(): void;
  children: ReactNode;
  /** Extra class for sizing (e.g. the notification dialog's widths). */
  className?: string;
  /** Full screen (the notification dialog at 768 px and below). */
  fullscreen?: boolean;
  /** Buttons or tabs beside the title. */
  actions?: ReactNode;
}

export function Dialog({ open, title, onClose, children, className, fullscreen, actions }: DialogProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    if (!open) return undefined;
    const previous = document.activeElement as HTMLElement | null;
    panel.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onCloseRef.current();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, [open]);

  if (!open) return null;
  return createPortal(
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        className={['dialog', fullscreen ? 'dialog-fullscreen' : '', className ?? ''].join(' ')}
      >
        <header className="dialog-header">
          <h2 id={titleId} className="dialog-title">
            {title}
          </h2>
          {actions}
          <button type="button" className="icon-button" onClick={onClose} aria-label={t('app.close')}>
            <CloseIcon />
          </button>
        </header>
        <div className="dialog-body">{children}</div>
      </div>
    </div>,
    document.body,
  );
}
