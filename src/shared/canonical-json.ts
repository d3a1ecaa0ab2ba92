/**
 * JSON with object keys sorted, so `{a,b}` and `{b,a}` are one request. Built with a work list
 * rather than recursion: a body nested thousands deep must not overflow the stack.
 */
export function canonicalJson(value: unknown): string {
  let json = ''
  // Values still to write, last first; a Text is written as is.
  const todo: unknown[] = [value]
  while (todo.length > 0) {
    const item = todo.pop()
    if (item instanceof Text) {
      json += item.text
    } else if (Array.isArray(item)) {
      todo.push(new Text(']'))
      for (let i = item.length - 1; i >= 0; i--) {
        todo.push(item[i])
        if (i > 0) todo.push(new Text(','))
      }
      todo.push(new Text('['))
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>).sort(([a], [b]) =>
        a < b ? -1 : a > b ? 1 : 0,
      )
      todo.push(new Text('}'))
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, entry] = entries[i] as [string, unknown]
        todo.push(entry, new Text(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`))
      }
      todo.push(new Text('{'))
    } else {
      json += JSON.stringify(item ?? null)
    }
  }
  return json
}

class Text {
  constructor(readonly text: string) {}
}
