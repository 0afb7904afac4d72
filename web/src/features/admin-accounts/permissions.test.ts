import { permissionsOf } from '@/testing/admins';

import { accessKey, groupPermissions } from './permissions';

test('permissions group by area in the back-office order, view and change together', () => {
  expect(groupPermissions(permissionsOf('finance'))).toEqual([
    { area: 'dashboard', read: true, write: false },
    { area: 'users', read: true, write: false },
    { area: 'teams', read: true, write: false },
    { area: 'trades', read: true, write: false },
    { area: 'orders', read: true, write: true },
    { area: 'money', read: true, write: true },
    { area: 'audit', read: true, write: false },
  ]);
  expect(groupPermissions(permissionsOf('super')).map((a) => a.area)).toEqual(['dashboard', 'users', 'teams', 'rules', 'trades', 'orders', 'money', 'products', 'config', 'notices', 'audit', 'admins', 'house']);
});

test('an area the catalogue does not know comes last; malformed entries are left out', () => {
  expect(groupPermissions(['reports:read', 'users:read', 'bogus', 'users:delete', ':read'])).toEqual([
    { area: 'users', read: true, write: false },
    { area: 'reports', read: true, write: false },
  ]);
  expect(groupPermissions([])).toEqual([]);
});

test('the access is named view, change, or both', () => {
  expect(accessKey({ area: 'x', read: true, write: false })).toBe('admin.account.access.read');
  expect(accessKey({ area: 'x', read: true, write: true })).toBe('admin.account.access.readWrite');
  expect(accessKey({ area: 'x', read: false, write: true })).toBe('admin.account.access.write');
});
