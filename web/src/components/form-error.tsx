/** A form's error that belongs to no one field, announced as it appears. */
export function FormError({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  return (
    <div className="form-error" role="alert">
      {text}
    </div>
  );
}
