import { describe, expect, it } from 'vitest';
import {
  AS_WRITTEN,
  expandRoute,
  type RouteValues,
  type UrlStyle,
} from '../../build/core/config/route-pattern.ts';

const HUGO: UrlStyle = { style: 'hugo', lowercase: true, removeAccents: false };
const page = (values: Partial<RouteValues> = {}): RouteValues => ({
  filename: 'hola',
  title: 'Hola',
  dir: 'posts',
  ...values,
});
const path = (pattern: string, values: Partial<RouteValues>, style: UrlStyle = HUGO) => {
  const result = expandRoute(pattern, page(values), style);
  if (!result.ok) throw new Error(result.message);
  return result.path;
};

describe('the hugo style gives the paths hugo 0.111 writes (each case seen in a real hugo build)', () => {
  it.each([
    ['/{path}/{slug}/', { filename: 'Hola-Mundo' }, '/posts/hola-mundo/'],
    ['/{path}/{slug}/', { filename: 'con espacio' }, '/posts/con-espacio/'],
    ['/{path}/{slug}/', { filename: 'atención' }, `/posts/${encodeURIComponent('atención')}/`],
    ['/{path}/{slug}/', { filename: 'acento.es' }, '/posts/acento.es/'],
    ['/{path}/{slug}/', { filename: 'anidado', dir: 'posts/2024' }, '/posts/2024/anidado/'],
    ['/{path}/{slug}/', { filename: 'x', slug: 'Mi-Slug Raro' }, '/posts/mi-slug-raro/'],
    ['/{path}/{slug}/', { filename: 'Ab C', dir: 'Blog Posts/Sub Dir' }, '/blog-posts/sub-dir/ab-c/'],
    ['/My Notes/{section}/{filename}/{slug}/', { filename: 'N(1)!', dir: 'notes' }, '/my-notes/notes/n1/n1/'],
    [
      '/t/{filename}/{title}/',
      { filename: 't2', title: 'Título Dos!' },
      `/t/t2/${encodeURIComponent('título-dos')}/`,
    ],
    [
      '/{year}/{month}/{day}/{slugOrTitle}/',
      { title: 'Con Fecha', day: '2024-03-05' },
      '/2024/03/05/con-fecha/',
    ],
    ['/{year}/{slugOrTitle}/', { title: 'Con Fecha', slug: 'Otro', day: '2024-03-05' }, '/2024/otro/'],
  ])('%s with %j → %s', (pattern, values, expected) => {
    expect(path(pattern, values)).toBe(expected);
  });

  it('keeps the case with lowercase: false, strips accents with removeAccents', () => {
    expect(path('/{path}/{slug}/', { filename: 'Hola Mundo' }, { ...HUGO, lowercase: false })).toBe(
      '/posts/Hola-Mundo/',
    );
    expect(path('/{path}/{slug}/', { filename: 'atención' }, { ...HUGO, removeAccents: true })).toBe(
      '/posts/atencion/',
    );
  });

  it('keeps the scheme and host of an absolute route (a language with its own baseURL)', () => {
    expect(path('https://EN.example.com/{path}/{slug}/', { filename: 'Hi There' })).toBe(
      'https://EN.example.com/posts/hi-there/',
    );
  });
});

describe('as written (the default): values percent-encoded, the route kept', () => {
  it('encodes each value and each folder of {path}', () => {
    expect(path('/Blog/{path}/{slug}/', { filename: 'Año 1', dir: 'posts/2024 b' }, AS_WRITTEN)).toBe(
      '/Blog/posts/2024%20b/A%C3%B1o%201/',
    );
  });
});

it('a page at the top of the content folder has no {path}: one slash, as hugo writes it', () => {
  expect(path('/{path}/{slug}/', { dir: '' })).toBe('/hola/');
  expect(path('/en/{path}/{slug}/', { dir: '' })).toBe('/en/hola/');
});

it('says which token a page cannot fill', () => {
  expect(expandRoute('/{year}/{slug}/', page(), HUGO)).toEqual({
    ok: false,
    token: 'year',
    message: 'the page has no date, which {year} needs',
  });
  expect(expandRoute('/{title}/', page({ title: '¿?' }), HUGO)).toMatchObject({ ok: false, token: 'title' });
  expect(expandRoute('/{section}/{slug}/', page({ dir: '' }), HUGO)).toMatchObject({
    ok: false,
    token: 'section',
  });
});
