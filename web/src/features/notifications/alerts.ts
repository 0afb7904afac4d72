/**
 * How a new notification announces itself: a short tone at volume 0.5 (made in the page
 * with the Web Audio API, so no sound file is fetched), and for high priority a desktop
 * notification when the user has granted permission, closed after 5 s.
 */
export const SOUND_VOLUME = 0.5;
export const DESKTOP_CLOSE_MS = 5_000;
const TONE_HZ = 880;
const TONE_S = 0.18;

let audio: AudioContext | null = null;

export function playTone(): void {
  try {
    const Context = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Context) return;
    audio ??= new Context();
    if (audio.state === 'suspended') void audio.resume();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = TONE_HZ;
    gain.gain.setValueAtTime(SOUND_VOLUME, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + TONE_S);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(audio.currentTime + TONE_S);
  } catch {
    // Audio blocked until the user interacts with the page: stay silent.
  }
}

export function desktopPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

export async function askDesktopPermission(): Promise<NotificationPermission | 'unsupported'> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}

export function showDesktop(title: string, body: string): void {
  if (desktopPermission() !== 'granted') return;
  try {
    const note = new Notification(title, { body, tag: `${title}-${body}` });
    setTimeout(() => note.close(), DESKTOP_CLOSE_MS);
  } catch {
    // Some browsers only allow notifications from a service worker.
  }
}
