/** `virtual:locales` (scripts/locale-sections.ts): each language's text sections, lazily. */
declare module 'virtual:locales' {
  type Section = () => Promise<{ default: Record<string, unknown> }>;
  const locales: Record<string, Record<string, Section>>;
  export default locales;
}
