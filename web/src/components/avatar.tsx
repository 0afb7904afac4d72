/**
 * The avatar placeholder, drawn in the page from the name (no avatar service can be reached):
 * initials on a colour chosen from the name, so each user keeps the same one.
 */
const COLORS = ['#3b82f6', '#8b5cf6', '#ec4899', '#f59e0b', '#10b981', '#06b6d4', '#ef4444', '#84cc16'];

function hash(text: string): number {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h;
}

function initials(name: string): string {
  const clean = name.replace(/^wallet_[a-z]+_/, '').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const parts = clean.split(' ').filter(Boolean);
  const letters = parts.length > 1 ? `${parts[0]![0]}${parts[1]![0]}` : clean.slice(0, 2);
  return letters.toUpperCase() || '?';
}

export function Avatar({ name, src, size = 32 }: { name: string; src?: string; size?: number }) {
  if (src) return <img className="avatar" src={src} alt="" width={size} height={size} />;
  const color = COLORS[hash(name) % COLORS.length];
  return (
    <svg className="avatar" width={size} height={size} viewBox="0 0 40 40" aria-hidden="true" focusable="false">
      <circle cx="20" cy="20" r="20" fill={color} />
      <text x="20" y="25" textAnchor="middle" fontSize="15" fontWeight="600" fill="#fff" fontFamily="system-ui, sans-serif">
        {initials(name)}
      </text>
    </svg>
  );
}
