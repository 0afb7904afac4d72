/** Hands a file to the browser's downloads, as a link the user clicked would. */
export function saveFile(blob: Blob, filename: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = filename;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the link; the object URL can go once it has been read.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
