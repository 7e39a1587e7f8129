// knex 3's everyday path over node-postgres: migrations (latest twice, rollback) that use the schema builder
// (increments, a foreign key, unique, notNullable with a default, timestamps, decimal, jsonb), insert ... returning,
// a join, update, delete, a unique violation, a rolled-back transaction. Prints OK/FAIL lines per step.
const fs = require('fs');
const os = require('os');
const path = require('path');
const [host, port, database] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'knexmig'));
fs.writeFileSync(path.join(dir, '001_schema.js'), `
exports.up = k => k.schema
  .createTable('kx_author', t => { t.increments('id'); t.string('name', 50).notNullable().unique();
    t.boolean('active').notNullable().defaultTo(true); t.timestamps(true, true); })
  .createTable('kx_book', t => { t.increments('id'); t.integer('author_id').notNullable().references('id')
    .inTable('kx_author').onDelete('CASCADE'); t.text('title'); t.decimal('price', 8, 2); t.jsonb('data'); });
exports.down = k => k.schema.dropTable('kx_book').dropTable('kx_author');
`);
const knex = require('knex')({ client: 'pg', connection: { host, port: +port, user: 'postgres', database },
  migrations: { directory: dir, tableName: 'kx_migrations' } });
async function step(name, fn) {
  try { const v = await fn(); console.log('OK', name, v === undefined ? '' : JSON.stringify(v)); }
  catch (e) { console.log('FAIL', name, e.code || '', String(e.message).slice(0, 300)); }
}
(async () => {
  await step('migrate latest', async () => (await knex.migrate.latest())[1].map(f => path.basename(f)));
  await step('migrate latest again', async () => (await knex.migrate.latest())[1]);
  await step('insert returning', async () => {
    const [a] = await knex('kx_author').insert({ name: 'ada' }).returning(['id', 'name', 'active']);
    await knex('kx_book').insert([{ author_id: a.id, title: 'notes', price: 1.25, data: { k: [1, 2] } },
      { author_id: a.id, title: 'letters', price: '10.50' }]);
    return a;
  });
  await step('join', async () => knex('kx_book').join('kx_author', 'kx_author.id', 'kx_book.author_id')
    .select('kx_author.name', 'kx_book.title', 'kx_book.price', 'kx_book.data').orderBy('kx_book.title'));
  await step('aggregate', async () => knex('kx_book').select('author_id').sum({ total: 'price' })
    .count({ n: '*' }).groupBy('author_id'));
  await step('update delete', async () => [await knex('kx_book').where({ title: 'letters' }).update({ price: 11 }),
    await knex('kx_book').where('price', '<', 2).del(), (await knex('kx_book').count({ n: '*' }))[0].n]);
  await step('unique violation', async () => {
    try { await knex('kx_author').insert({ name: 'ada' }); return 'no error'; }
    catch (e) { return [e.code, e.constraint, e.table]; }
  });
  await step('rolled back', async () => {
    try { await knex.transaction(async t => { await t('kx_author').insert({ name: 'bob' }); throw new Error('undo'); }); }
    catch (e) { }
    return (await knex('kx_author').select('name').orderBy('name')).map(r => r.name);
  });
  await step('has table', async () => [await knex.schema.hasTable('kx_book'), await knex.schema.hasColumn('kx_book', 'price'),
    await knex.schema.hasTable('nope')]);
  await step('migrate rollback', async () => (await knex.migrate.rollback())[1].map(f => path.basename(f)));
  await step('cleanup', async () => { await knex.schema.dropTableIfExists('kx_migrations');
    await knex.schema.dropTableIfExists('kx_migrations_lock'); });
  await knex.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
})();
