/** A labelled <select> of string values with an "all/any" empty choice (filters and forms). */
export function SelectField({
  name,
  label,
  options,
  defaultValue,
  emptyLabel = "All",
  render = (v) => v,
}: {
  name: string;
  label: string;
  options: string[];
  defaultValue?: string;
  emptyLabel?: string;
  render?: (value: string) => string;
}) {
  // label + htmlFor (not a wrapping label): the select's accessible name is the label alone,
  // not the label plus every option's text
  const id = `field-${name}`;
  return (
    <div className="flex flex-col gap-1 text-xs font-medium text-slate-600">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={defaultValue ?? ""} className="rounded border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900">
        <option value="">{emptyLabel}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {render(o)}
          </option>
        ))}
      </select>
    </div>
  );
}
