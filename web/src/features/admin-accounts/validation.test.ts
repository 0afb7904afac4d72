import { checkNewAdmin, checkOwnPassword } from './validation';

test('a new admin: username 3-20 letters, digits or _, password 6-128 characters, one of the four roles', () => {
  expect(checkNewAdmin({ username: 'ops_2', password: 'secret', role: 'operations' })).toEqual({});
  expect(checkNewAdmin({ username: '  ', password: '', role: '' })).toEqual({
    username: 'admin.admins.errors.usernameRequired',
    password: 'admin.admins.errors.passwordRequired',
    role: 'admin.admins.errors.roleRequired',
  });
  for (const name of ['ab', 'a'.repeat(21)]) expect(checkNewAdmin({ username: name, password: 'secret', role: 'super' }).username).toBe('admin.admins.errors.usernameLength');
  for (const name of ['bad name', 'dash-name', 'émile', 'dot.name']) expect(checkNewAdmin({ username: name, password: 'secret', role: 'super' }).username).toBe('admin.admins.errors.usernameChars');
  expect(checkNewAdmin({ username: 'abc', password: '12345', role: 'super' }).password).toBe('admin.admins.errors.passwordMin');
  expect(checkNewAdmin({ username: 'abc', password: 'x'.repeat(129), role: 'super' }).password).toBe('admin.admins.errors.passwordMax');
  // The old role names are gone.
  for (const role of ['operator', 'viewer', 'Super']) expect(checkNewAdmin({ username: 'abc', password: 'secret', role }).role).toBe('admin.admins.errors.roleRequired');
});

test('changing one\'s password: spec §5', () => {
  expect(checkOwnPassword({ current: 'old-one', next: 'new-one', confirm: 'new-one' })).toEqual({});
  for (const form of [
    { current: '', next: 'new-one', confirm: 'new-one' },
    { current: 'old-one', next: '', confirm: 'new-one' },
    { current: 'old-one', next: 'new-one', confirm: '' },
  ]) {
    expect(checkOwnPassword(form)).toEqual({ form: 'admin.account.password.fillAll' });
  }
  expect(checkOwnPassword({ current: 'old-one', next: '12345', confirm: '12345' })).toEqual({ next: 'admin.account.password.min' });
  expect(checkOwnPassword({ current: 'old-one', next: '123456', confirm: '123457' })).toEqual({ confirm: 'admin.account.password.mismatch' });
  expect(checkOwnPassword({ current: 'old-one', next: '12345', confirm: '1234' })).toEqual({ next: 'admin.account.password.min', confirm: 'admin.account.password.mismatch' });
});
