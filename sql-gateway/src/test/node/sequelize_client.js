// Sequelize 6's everyday path over node-postgres: sync of associated models, create, include, a unique violation,
// a rolled-back transaction, describeTable, findOrCreate (last: on PostgreSQL it runs a PL/pgSQL function). Prints OK/FAIL lines per step.
const { Sequelize, DataTypes } = require('sequelize');
const [host, port, db] = process.argv.slice(2);
const s = new Sequelize(db, 'postgres', '', { host, port: +port, dialect: 'postgres', logging: false });
const Author = s.define('author', { name: { type: DataTypes.STRING, unique: true, allowNull: false },
  born: DataTypes.DATEONLY });
const Book = s.define('book', { title: { type: DataTypes.TEXT, allowNull: false }, price: DataTypes.DECIMAL(8, 2),
  published: DataTypes.DATE, inPrint: { type: DataTypes.BOOLEAN, defaultValue: true }, data: DataTypes.JSONB });
Author.hasMany(Book); Book.belongsTo(Author);
async function step(name, fn) {
  try { const v = await fn(); console.log('OK', name, v === undefined ? '' : JSON.stringify(v)); }
  catch (e) { console.log('FAIL', name, (e.parent && e.parent.code) || '', String(e.message).slice(0, 300)); }
}
(async () => {
  await step('authenticate', () => s.authenticate());
  await step('sync', () => s.sync({ force: true }).then(() => undefined));
  await step('create', async () => {
    const ada = await Author.create({ name: 'ada', born: '1815-12-10' });
    await Book.create({ title: 'notes', price: '1.25', authorId: ada.id, data: { k: [1, 2] },
      published: new Date(Date.UTC(2020, 0, 2, 3, 4, 5)) });
    return [await Author.count(), await Book.count()];
  });
  await step('include', async () => (await Author.findAll({ include: Book, order: [['name', 'ASC']] }))
    .map(a => [a.name, a.books.map(b => [b.title, b.price, b.data, b.published.toISOString()])]));
  await step('unique violation', async () => {
    try { await Author.create({ name: 'ada' }); return 'no error'; }
    catch (e) { return [e.name, e.parent.code, e.parent.constraint]; }
  });
  await step('rolled back', async () => {
    try { await s.transaction(async t => { await Author.create({ name: 'cy' }, { transaction: t });
      throw new Error('undo'); }); } catch (e) { }
    return (await Author.findAll({ order: [['name', 'ASC']] })).map(a => a.name);
  });
  await step('describe', async () => Object.keys(await s.getQueryInterface().describeTable('books')).sort());
  await step('findOrCreate', async () => {
    const [a, created] = await Author.findOrCreate({ where: { name: 'bob' } });
    const [b, again] = await Author.findOrCreate({ where: { name: 'bob' } });
    return [created, again, a.id === b.id];
  });
  await step('drop', () => s.drop().then(() => undefined));
  await s.close();
})();
