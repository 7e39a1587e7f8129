// TypeORM 0.3's everyday path: synchronize of two related entities, save, find with relations, a unique violation,
// a rolled-back transaction. Prints OK/FAIL lines per step.
require('reflect-metadata');
const { DataSource, EntitySchema } = require('typeorm');
const [host, port, database] = process.argv.slice(2);
const Author = new EntitySchema({ name: 'Author', tableName: 'to_author', columns: {
  id: { type: Number, primary: true, generated: true }, name: { type: String, unique: true } },
  relations: { books: { type: 'one-to-many', target: 'Book', inverseSide: 'author' } } });
const Book = new EntitySchema({ name: 'Book', tableName: 'to_book', columns: {
  id: { type: Number, primary: true, generated: true }, title: { type: 'text' },
  price: { type: 'numeric', precision: 8, scale: 2 }, data: { type: 'jsonb', nullable: true },
  published: { type: 'timestamptz', nullable: true } },
  relations: { author: { type: 'many-to-one', target: 'Author', inverseSide: 'books', joinColumn: true } } });
const ds = new DataSource({ type: 'postgres', host, port: +port, username: 'postgres', database,
  entities: [Author, Book], synchronize: false, logging: false });
async function step(name, fn) {
  try { const v = await fn(); console.log('OK', name, v === undefined ? '' : JSON.stringify(v)); }
  catch (e) { console.log('FAIL', name, e.code || '', String(e.message).slice(0, 300)); }
}
(async () => {
  await step('initialize', () => ds.initialize().then(() => undefined));
  await step('synchronize', () => ds.synchronize(true).then(() => undefined));
  await step('synchronize again', () => ds.synchronize().then(() => undefined));
  await step('save', async () => {
    const a = await ds.getRepository('Author').save({ name: 'ada' });
    await ds.getRepository('Book').save({ title: 'notes', price: '1.25', data: { k: [1, 2] }, author: a,
      published: new Date(Date.UTC(2020, 0, 2, 3, 4, 5)) });
    return [await ds.getRepository('Author').count(), await ds.getRepository('Book').count()];
  });
  await step('find relations', async () => (await ds.getRepository('Author').find({ relations: { books: true } }))
    .map(a => [a.name, a.books.map(b => [b.title, b.price, b.data, b.published.toISOString()])]));
  await step('unique violation', async () => {
    try { await ds.getRepository('Author').insert({ name: 'ada' }); return 'no error'; }
    catch (e) { return [e.code, e.constraint]; }
  });
  await step('rolled back', async () => {
    try { await ds.transaction(async m => { await m.getRepository('Author').insert({ name: 'bob' });
      throw new Error('undo'); }); } catch (e) { }
    return (await ds.getRepository('Author').find({ order: { name: 'ASC' } })).map(a => a.name);
  });
  await step('drop', () => ds.dropDatabase().then(() => undefined));
  if (ds.isInitialized) await ds.destroy();
})();
