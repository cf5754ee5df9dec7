// Answers from a hub, or from a proxy in front of it, are checked before they are used.

/** What came where a wire type `T` belongs, before it is checked: `T`'s members, each missing or of any type. */
export type Unread<T> = { [K in keyof T]?: unknown };
