/** Profile: avatar, nickname, bio, phone, e-mail. */
export { Profile } from './components/profile';
