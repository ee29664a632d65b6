import Link from "next/link";

export default function Forbidden() {
  return (
    <div className="rounded border border-slate-200 bg-white p-6">
      <h1 className="text-lg font-semibold">Not for your role</h1>
      <p className="mt-2 text-sm text-slate-600">Your account does not have the role this page needs. Ask an admin.</p>
      <Link href="/" className="mt-4 inline-block text-sm text-blue-700 underline">
        Home
      </Link>
    </div>
  );
}
