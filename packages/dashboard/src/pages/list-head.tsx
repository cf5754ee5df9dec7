/** The head of a list table: its columns, and an unnamed one for the row's actions when there are any. */
export function ListHead({ columns, actions }: { columns: string[]; actions: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th scope="col" key={column}>
            {column}
          </th>
        ))}
        {actions ? (
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}
