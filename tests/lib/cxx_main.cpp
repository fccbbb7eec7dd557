// SPDX-License-Identifier: BSD-3-Clause
// headers_cxx passes when it builds: each only_*.cpp includes one header.
int main()
{
	return 0;
}
