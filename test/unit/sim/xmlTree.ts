/**
 * A small XML reader for the simulator's SVG tests (no XML parser is a dependency): checks well-formedness (one
 * root, tags closed in order, quoted attributes, only the five predefined entities or numeric references, no raw
 * `<` or `&` in text) and returns the element tree with text unescaped. Throws on the first fault.
 */

/** An element: name, attributes (unescaped), children and its own text (unescaped, concatenated). */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = '[A-Za-z_][\\w.:-]*';
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

function decode(raw: string, where: string): string {
  if (/[<]/.test(raw) || /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(raw))
    throw new Error(`unescaped markup in ${where}: ${raw}`);
  return raw.replace(ENTITY, (e) => {
    const named: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };
    if (named[e]) return named[e];
    return String.fromCodePoint(e.startsWith('&#x') ? parseInt(e.slice(3, -1), 16) : parseInt(e.slice(2, -1), 10));
  });
}

function attributes(raw: string, tag: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const re = new RegExp(`\\s+(${NAME})="([^"]*)"`, 'y');
  let at = 0;
  while (at < raw.length) {
    re.lastIndex = at;
    const m = re.exec(raw);
    if (!m) {
      if (raw.slice(at).trim() === '') break;
      throw new Error(`bad attributes in <${tag}>: ${raw.slice(at)}`);
    }
    if (m[1]! in attrs) throw new Error(`duplicate attribute ${m[1]} in <${tag}>`);
    attrs[m[1]!] = decode(m[2]!, `attribute ${m[1]} of <${tag}>`);
    at = re.lastIndex;
  }
  return attrs;
}

/** Parses a document. @throws Error when it is not well-formed */
export function parseXml(doc: string): XmlElement {
  const body = doc.replace(/^<\?xml[^?]*\?>/, '').trim();
  const tag = new RegExp(`<(/?)(${NAME})((?:\\s+${NAME}="[^"]*")*)\\s*(/?)>`, 'y');
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let at = 0;
  while (at < body.length) {
    const lt = body.indexOf('<', at);
    const text = body.slice(at, lt === -1 ? body.length : lt);
    if (text.trim() !== '') {
      const top = stack[stack.length - 1];
      if (!top) throw new Error(`text outside the root: ${text.trim()}`);
      top.text += decode(text, `text of <${top.name}>`);
    }
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(body);
    if (!m) throw new Error(`malformed tag at ${lt}: ${body.slice(lt, lt + 60)}`);
    const [, closing, name, rawAttrs, selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (open?.name !== name) throw new Error(`</${name}> closes <${open?.name ?? 'nothing'}>`);
    } else {
      const el: XmlElement = { name: name!, attrs: attributes(rawAttrs ?? '', name!), children: [], text: '' };
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      else if (root) throw new Error('more than one root element');
      else root = el;
      if (!selfClosing) stack.push(el);
    }
    at = tag.lastIndex;
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (!root) throw new Error('no root element');
  return root;
}

/** Every element of the tree, depth first. */
export function allElements(el: XmlElement): XmlElement[] {
  return [el, ...el.children.flatMap(allElements)];
}

/** The elements whose `class` attribute holds `cls`. */
export function byClass(el: XmlElement, cls: string): XmlElement[] {
  return allElements(el).filter((e) => (e.attrs.class ?? '').split(/\s+/).includes(cls));
}
